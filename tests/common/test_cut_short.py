"""Contract: a cut made at ingest is stored as a warning and read back as the same cut
(`CutShort.warning` / `CutShort.read`), so a briefing can word it in its own language; any other
warning (a cap, a parse note) reads as no cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tasks.common.limits import CAPPED, CUT_SHORT, STEPS, CutShort, Deadline

cuts = st.builds(
    CutShort,
    step=st.sampled_from(sorted(STEPS)),
    at=st.integers(1, 10**7),
    done=st.integers(0, 10**7),
    # the warning writes seconds as `:g` (six significant digits): the values a budget setting holds
    seconds=st.floats(1e-6, 1e6).map(lambda s: float(f"{s:g}")),
)


@given(cuts)
def test_a_stored_cut_reads_back_as_itself(cut: CutShort) -> None:
    warning = cut.warning()
    assert warning.startswith(CUT_SHORT)
    assert CutShort.read(warning) == cut


@given(st.text())
def test_other_warnings_are_no_cut(text: str) -> None:
    assert CutShort.read(f"{CAPPED}{text}") is None
    assert CutShort.read(text) is None or text.startswith(CUT_SHORT)


def test_an_unknown_step_is_no_cut() -> None:
    assert CutShort.read(CutShort("entries", 2, 1, 2.0).warning().replace("entries", "elsewhere")) is None


def test_a_deadline_keeps_the_first_place_it_ran_out() -> None:
    now = [0.0]
    deadline = Deadline(1.0, clock=lambda: now[0])
    assert not deadline.expired("entries", 1) and deadline.cut_short(1) is None
    now[0] = 2.0
    assert deadline.expired("entries", 4) and deadline.expired("rows", 9)
    assert deadline.cut_short(4) == CutShort("entries", 5, 4, 1.0)
