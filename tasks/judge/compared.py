"""Papers and things a text names only as a comparison or a contrast, never as what it is about.

"compared with X", "than X", "vs X", 「不同于 X」, "not to be confused with X": judgment.toml
`[markers] context_regex` holds the phrases. Judging reads them to tell a row's or a list item's own
paper from the one it is measured against; verification reads them to find what a claim is about.
A table row's own papers are those of its key cells, as a heading's are a body's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from tasks.config.judgment import Judgment


@lru_cache(maxsize=8)
def context_pattern(j: Judgment) -> re.Pattern[str]:
    """`[markers] context_regex` of `j`, compiled once per judgment (an empty list matches nothing)."""
    return re.compile("|".join(f"(?:{r})" for r in j.words("markers", "context_regex")), re.IGNORECASE)


def without_context(pattern: re.Pattern[str], text: str) -> str:
    """`text` without the things it names only as a comparison or a contrast: what is left says what
    the text is about."""
    return pattern.sub(" ", text) if pattern.pattern else text


def row_key_ids(row: str, ids_in: Callable[[str], Sequence[str]]) -> list[str]:
    """The papers a table row is about: the ids of its leading cells, up to the first cell that names
    one (the row's key, as in "Paper | arXiv | claim | status"). An id in a later cell is what the
    row's claim compares with. Empty when no cell but the last names one."""
    cells = row.strip().strip("|").split("|")
    return list(next((ids for ids in (ids_in(cell) for cell in cells[:-1]) if ids), []))
