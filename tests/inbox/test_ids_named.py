"""Contract: `ids_named(text, ids)` is `names_id` asked of each id in `ids`, in one pass over the
text (tasks/inbox/own_parts.py), for new-style and old-style ids, whatever the text around them.
It skips the old-style ids of a text without a slash, since each of them holds one (e203364: an
entry past the id cap built a new id set per paper, and each scanned all its ids again)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.inbox.own_parts import ids_named, names_id

NEW = ("2610.04646", "2610.0464", "0704.0001", "2609.31111")
OLD = ("hep-th/9901001", "quant-ph/0201082", "cs/0112017")
# What can stand next to an id in a note: edges that end it, and digits, dots and slashes that do not.
AROUND = st.sampled_from(["", " ", "arXiv:", "v2", ".", "/", "0", "9", "https://arxiv.org/abs/", "（", "、",
                          "hep-th/", "HEP-TH/", "abs/", "\n", ".pdf", "1"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from(NEW + OLD), st.sampled_from(NEW).map(str.upper), AROUND),
                      max_size=12),
       ids=st.sets(st.sampled_from(NEW + OLD)))
def test_ids_named_is_names_id_for_each_id(parts: list[str], ids: set[str]) -> None:
    text = "".join(parts)
    wanted = frozenset(i for i in ids if names_id(text, i))
    assert ids_named(text, frozenset(ids)) == wanted


def test_an_old_style_id_is_found_with_or_without_new_style_ids_beside_it() -> None:
    ids = frozenset({"hep-th/9901001", "2610.04646"})
    assert ids_named("see hep-th/9901001v2", ids) == {"hep-th/9901001"}
    assert ids_named("arXiv:2610.04646 and HEP-TH/9901001", ids) == ids
    assert ids_named("hep-th 9901001", ids) == frozenset()  # no slash: not the id
