"""Numbers that fit their columns: out-of-range values are rejected (None) with a warning.

An INTEGER column holds -2^31..2^31-1; counts (votes, upvotes, ranks, citations, versions) are
never negative. A value outside its range is not a count anyone wrote on purpose, so it is
dropped and the source says so, rather than stopping the run at the database.
"""

from __future__ import annotations

INT4_MAX = 2**31 - 1


def count_or_none(value: object, field: str, warnings: list[str], maximum: int = INT4_MAX) -> int | None:
    """`value` when it is an int in 0..maximum (bools are not counts), else None and a warning."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        warnings.append(f"{field}: not a whole number: {str(value)[:40]!r}; ignored")
        return None
    if not 0 <= value <= maximum:
        shown = str(value) if len(str(value)) <= 40 else str(value)[:37] + "..."
        warnings.append(f"{field}: {shown} is out of range 0..{maximum}; ignored")
        return None
    return value


def parse_count(text: str, field: str, warnings: list[str], maximum: int = INT4_MAX) -> int | None:
    """A count written as digits (commas allowed), bounded like `count_or_none`."""
    digits = text.replace(",", "")
    if len(digits) > 40:  # int() of a huge digit string is slow and the value is out of range anyway
        warnings.append(f"{field}: {digits[:37]}... is out of range 0..{maximum}; ignored")
        return None
    return count_or_none(int(digits), field, warnings, maximum)
