"""Contract: a line longer than MAX_LINE_CHARS is cut at the cap, or just before a word running
across it (`tasks.common.limits.line_cut`), so the cap never makes an arXiv reference into a
shorter or malformed one: every reference found in what is kept was written whole in the line.
A run of word characters longer than any reference (a blob) is cut at the cap."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tasks.common.arxiv_ids import find_ids
from tasks.common.limits import MAX_LINE_CHARS, cap_lines, line_cut

FORMS = ["arXiv:{}", "https://arxiv.org/abs/{}v2", "{}", "arXiv {}", "10.48550/arXiv.{}"]


@given(st.integers(0, 60), st.lists(st.tuples(st.sampled_from(FORMS), st.integers(0, 99_999)), min_size=1, max_size=8))
def test_the_cap_never_cuts_a_reference_into_another(shift: int, refs: list[tuple[str, int]]) -> None:
    # Filler to just before the cap, then references written across it.
    tail = " ".join(form.format(f"2610.{n:05d}") for form, n in refs)
    line = "x " * ((MAX_LINE_CHARS - 40 - shift) // 2) + " " + tail + " " + "y " * 100
    kept = cap_lines(line, [])
    assert len(kept) <= MAX_LINE_CHARS and line.startswith(kept)
    written = {(m.raw, m.canonical) for m in find_ids(line)}
    assert {(m.raw, m.canonical) for m in find_ids(kept)} <= written


def test_a_blob_is_cut_at_the_cap() -> None:
    assert line_cut("A" * (2 * MAX_LINE_CHARS)) == MAX_LINE_CHARS
    assert line_cut("a " * MAX_LINE_CHARS) == MAX_LINE_CHARS
    assert line_cut("a " * (MAX_LINE_CHARS // 2 - 3) + "arXiv:2610.04646") == MAX_LINE_CHARS - 6
