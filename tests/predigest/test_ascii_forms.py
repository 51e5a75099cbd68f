"""Contract of the same-length ASCII reading of a text before its arXiv ids are looked for
(predigest/arxiv_ids.py): replacing only what `_WIDE` matches is `str.translate` with the whole
table, for every code point and for generated texts mixing CJK, full-width forms and digits of
every script; so every id's span in the reading is its span in the original."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from predigest.arxiv_ids import _WIDE, _ascii_digits_and_forms, _to_ascii_table, find_ids


def test_wide_matches_exactly_the_characters_the_table_translates() -> None:
    table = _to_ascii_table()
    differ = [c for c in range(sys.maxunicode + 1) if (_WIDE.fullmatch(chr(c)) is not None) != (c in table)]
    assert not differ, [hex(c) for c in differ[:10]]


_SOME = st.sampled_from([*"arXiv:2610.04646v2 .,/（）：", "\uff12", "\u0663", "\u09e8", "注意", "\n", "\uff41"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_SOME, st.characters()), max_size=60).map("".join))
def test_reading_equals_translate_and_keeps_length(text: str) -> None:
    read = _ascii_digits_and_forms(text)
    assert read == text.translate(_to_ascii_table())
    assert len(read) == len(text)


def test_full_width_id_is_found_at_its_original_place() -> None:
    text = "见 arXiv：２６１０．０４６４６ 与 2609.12551"
    (wide, plain) = find_ids(text)
    assert (wide.canonical, text[wide.start : wide.end]) == ("2610.04646", wide.raw)
    assert plain.canonical == "2609.12551"
