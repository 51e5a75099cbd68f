"""Style-shifted copies of a labelled workspace: the same evenings written the way another tool,
machine or author would, so `predigest score` must give the same figures (tests/score/test_styles.py).

Each variant takes a copy of a workspace and its labels (a folder of `YYYY-MM-DD.json`) and
rewrites both in place; none knows a file of the sample by name.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

Style = Callable[[Path, Path], None]
_SECTION = re.compile(r"^## ", re.M)


def _notes(workspace: Path) -> list[Path]:
    """The inbox notes that are UTF-8 text (a file in another encoding or a binary stays as it is)."""
    out = []
    for path in sorted((workspace / "inbox").rglob("*.md")):
        try:
            path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(path)
    return out


def crlf_bom(workspace: Path, labels: Path) -> None:
    """Every note saved by a Windows editor: a byte-order mark and CRLF line endings."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\n", "\r\n")
        path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))


def reordered_entries(workspace: Path, labels: Path) -> None:
    """Every note's `## ` sections in the opposite order (its text before the first stays first)."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8")
        starts = [m.start() for m in _SECTION.finditer(text)]
        if len(starts) < 2:
            continue
        head, parts = text[:starts[0]], [text[a:b] for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
        parts = [p if p.endswith("\n") else p + "\n" for p in parts]
        path.write_text(head + "".join(reversed(parts)), encoding="utf-8")


def renamed_authors(workspace: Path, labels: Path) -> None:
    """Every author's folder renamed (`inbox/jay` -> `inbox/jay-lab`), and the labels' paths with it."""
    moves = {}
    for folder in sorted(p for p in (workspace / "inbox").iterdir() if p.is_dir()):
        new = folder.with_name(folder.name + "-lab")
        folder.rename(new)
        moves[f"inbox/{folder.name}/"] = f"inbox/{new.name}/"

    def moved(value: object) -> object:
        if isinstance(value, str):
            return next((new + value[len(old):] for old, new in moves.items() if value.startswith(old)), value)
        if isinstance(value, list):
            return [moved(v) for v in value]
        if isinstance(value, dict):
            return {k: moved(v) for k, v in value.items()}
        return value

    for path in sorted(labels.glob("*.json")):
        label = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(moved(label), ensure_ascii=False, indent=1), encoding="utf-8")


_ATX = re.compile(r"^(#{2,5}) ", re.M)
_H2 = re.compile(r"^## (.+)$", re.M)
_CJK_ENTRY = re.compile(r"条目\s*#\s*(\d+)")


def deeper_headings(workspace: Path, labels: Path) -> None:
    """Every heading below the title one level deeper (`##` -> `###`, `###` -> `####`)."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8")
        path.write_text(_ATX.sub(lambda m: "#" + m.group(1) + " ", text), encoding="utf-8")


def setext_headings(workspace: Path, labels: Path) -> None:
    """Every `## ` heading written in setext style (the text, then a line of dashes)."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8")
        path.write_text(_H2.sub(lambda m: f"{m.group(1)}\n{'-' * 8}", text), encoding="utf-8")


def english_entry_labels(workspace: Path, labels: Path) -> None:
    """Chinese entry labels in English: 「条目#3 X」 -> "Entry 3 - X"."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8")
        path.write_text(_CJK_ENTRY.sub(lambda m: f"Entry {m.group(1)} -", text), encoding="utf-8")


STYLES: dict[str, Style] = {"crlf_bom": crlf_bom, "reordered_entries": reordered_entries,
                            "renamed_authors": renamed_authors, "deeper_headings": deeper_headings,
                            "setext_headings": setext_headings, "english_entry_labels": english_entry_labels}


_SUBHEADING = re.compile(r"^### (.+)$", re.M)


def bold_headings(workspace: Path, labels: Path) -> None:
    """Every `### ` heading of a note written as a bold-only line, as chat exports write them."""
    for path in _notes(workspace):
        text = path.read_text(encoding="utf-8")
        path.write_text(_SUBHEADING.sub(lambda m: f"**{m.group(1).strip()}**", text), encoding="utf-8")


STYLES["bold_headings"] = bold_headings


_CJK_NUMERALS = "一二三四五六七八九十"


def _cjk_numbered(text: str) -> str:
    count = iter(range(10_000))

    def numbered(m: re.Match[str]) -> str:
        k = next(count)
        return f"（{_CJK_NUMERALS[k]}）{m.group(1).strip()}" if k < len(_CJK_NUMERALS) else m.group(0)

    return _SUBHEADING.sub(numbered, text)


def cjk_numbered_headings(workspace: Path, labels: Path) -> None:
    """Every `### ` heading of a note written as a 「（一）」-numbered line, counted per note."""
    for path in _notes(workspace):
        path.write_text(_cjk_numbered(path.read_text(encoding="utf-8")), encoding="utf-8")


STYLES["cjk_numbered_headings"] = cjk_numbered_headings
