"""Contract: a cut made at ingest is stored as a warning and read back as the same cut
(`CutShort.warning` / `CutShort.read`), so a briefing can word it in its own language; any other
warning (a cap, a parse note, a cut stored in the seconds form of before) reads as no cut. A
budget is counted: a deadline runs out after as many entries as it has units, whatever the time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tasks.common.limits import CAPPED, CUT_SHORT, STEPS, CutShort, Deadline

cuts = st.builds(
    CutShort,
    step=st.sampled_from(sorted(STEPS)),
    at=st.integers(1, 10**7),
    done=st.integers(0, 10**7),
    units=st.integers(1, 10**9),
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
    assert CutShort.read(CutShort("entries", 2, 1, 2).warning().replace("entries", "elsewhere")) is None


def test_a_cut_stored_in_seconds_is_shown_as_stored_not_read() -> None:
    assert CutShort.read("cut short: over its 60 s budget in step entries, at entry 5; done: 4") is None


@given(st.integers(1, 50))
def test_a_deadline_keeps_its_first_entry_and_as_many_more_as_it_has_units_less_one(units: int) -> None:
    deadline = Deadline(units)
    # The loops check it from the second entry on (index 1): the first is always kept, and counted.
    kept = next(k for k in range(1, units + 2) if deadline.expired("entries", k))
    assert kept == units and deadline.cut_short(kept) == CutShort("entries", units + 1, units, units)
    assert deadline.expired("papers", kept + 5)  # spent once, spent in every step after
    assert deadline.cut_short(kept) == CutShort("entries", units + 1, units, units)  # the first place is kept


def test_an_unbounded_deadline_never_runs_out() -> None:
    deadline = Deadline(None)
    assert not any(deadline.expired("entries", k) for k in range(1, 10_000)) and deadline.cut_short(9999) is None
