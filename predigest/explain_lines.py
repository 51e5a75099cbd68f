"""Where in its file a piece of evidence was read: the line `predigest explain` shows.

The stored entries keep their text, not their place, so the line is found again in the file as it
is in the workspace now: the first line holding the statement, nearest to a line naming the paper
(a statement binds to the paper it is written next to). A card's category is the line of its
`primary:` / `secondary:` key, a queue row the line naming the paper. Evidence read from a file
name or a whole text (vocabulary, the note's topic) has no line. A file that is missing, not a
regular file inside the workspace, larger than MAX_BYTES, or changed so the text is gone gives no
line: never a guess.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tasks.common.decode import decode_bytes

MAX_BYTES = 8 * 1024 * 1024
_CARD_KEYS = {"card_primary": "primary", "card_secondary": "secondary"}
_SPACE = re.compile(r"\s+")
_NO_LINE = ("vocabulary", "note_for_topic", "note_names_topic", "note_about_topic")


def _squeeze(text: str) -> str:
    return _SPACE.sub("", text).lower()


class SourceLines:
    """The lines of the workspace's files, read once each, and where evidence sits in them."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, rel: str) -> list[str] | None:
        if rel not in self._lines:
            self._lines[rel] = self._read(rel)
        return self._lines[rel]

    def _read(self, rel: str) -> list[str] | None:
        if rel.startswith(("http://", "https://")):
            return None
        path = self.root / rel
        try:
            resolved = path.resolve(strict=True)
            if path.is_symlink() or not resolved.is_relative_to(self.root) or not resolved.is_file():
                return None
            if resolved.stat().st_size > MAX_BYTES:
                return None
            return decode_bytes(resolved.read_bytes()).text.splitlines()  # the lines ingest read
        except (OSError, RuntimeError, ValueError):
            return None

    def line_of(self, evidence: Any, arxiv_id: str | None) -> int | None:
        """The 1-based line of `evidence` (an Evidence) in its file, or None."""
        if evidence.kind in _NO_LINE:
            return None
        lines = self.lines(evidence.path)
        if not lines:
            return None
        if evidence.kind in _CARD_KEYS:
            key = _CARD_KEYS[evidence.kind]
            return next((k for k, line in enumerate(lines, 1) if line.strip().lower().startswith(f"{key}:")), None)
        if evidence.kind == "reader_verdict":  # the last verdict line on the paper: the latest one wins
            found = [k for k, line in enumerate(lines, 1) if arxiv_id and arxiv_id in line and "verdict" in line]
            return found[-1] if found else None
        if evidence.kind.startswith("queue_"):
            return _nearest([k for k, line in enumerate(lines, 1) if arxiv_id and arxiv_id in line], [])
        said = _squeeze(evidence.detail.removeprefix("preamble: "))
        if not said:
            return None
        holding = [k for k, line in enumerate(lines, 1) if said in _squeeze(line)]
        naming = [k for k, line in enumerate(lines, 1) if arxiv_id and arxiv_id in line]
        return _nearest(holding, naming)


def _nearest(candidates: list[int], anchors: list[int]) -> int | None:
    """The candidate nearest to an anchor line (the first candidate when there are no anchors)."""
    if not candidates:
        return None
    if not anchors:
        return candidates[0]
    return min(candidates, key=lambda k: (min(abs(k - a) for a in anchors), k))
