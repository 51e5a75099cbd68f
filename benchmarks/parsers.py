"""The candidate markdown parsers over every note of a workspace, one pass each, beside the read+regex
floor: the figures behind choosing pyromark (docs/dependencies.md).

    .venv/bin/python -m benchmarks.parsers WORKSPACE     # e.g. one made by tests/generate/large.py
Needs `pip install markdown-it-pyrs` for its row (skipped when absent).
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyromark
from markdown_it import MarkdownIt

_ID = re.compile(r"\d{4}\.\d{4,5}")


def candidates() -> dict[str, Callable[[str], Any]]:
    md = MarkdownIt("commonmark").enable("table")
    out: dict[str, Callable[[str], Any]] = {
        "read+regex floor (split lines, find ids)": lambda t: (t.split("\n"), _ID.findall(t)),
        "pyromark events_with_range": lambda t: list(pyromark.events_with_range(t, options=pyromark.Options.ENABLE_TABLES)),
    }
    try:
        import markdown_it_pyrs  # type: ignore[import-not-found,unused-ignore]

        rs = markdown_it_pyrs.MarkdownIt("commonmark").enable("table")
        out["markdown-it-pyrs tree"] = rs.tree
    except ImportError:
        pass
    out["markdown-it-py parse"] = md.parse
    return out


def main(root: Path) -> None:
    texts = []
    for path in sorted((root / "inbox").rglob("*.md")):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
    print(f"{len(texts)} notes, {sum(len(t.encode()) for t in texts) / 1e6:.1f} MB")
    for name, parse in candidates().items():
        started = time.perf_counter()
        for text in texts:
            parse(text)
        print(f"{name:45s} {time.perf_counter() - started:6.2f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
