"""A workspace of many small notes on one topic: thousands of files of a few lines each, spread
over the days before a briefing date (long enough an ingest to interrupt, quick to brief)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from tests.generate.documents import knowledge_document
from tests.generate.files import local, write_file

END = dt.date(2026, 10, 9)


def many_small_notes(root: Path, count: int, days: int = 9, papers: int = 400) -> None:
    """`count` notes over the `days` dates ending at END (each names one of `papers` ids and a
    figure), and an `inference` knowledge document anchoring two of them."""
    for serial in range(count):
        day = END - dt.timedelta(days=serial % days)
        hour, minute = 8 + (serial // 60) % 12, serial % 60
        rel = f"inbox/amy/{day.isoformat()}-{hour:02d}{minute:02d}-amy-note-{serial}.md"
        text = (f"# note {serial}\n\n## 1. vLLM serving trick {serial}\n\n"
                f"- arXiv:2610.{serial % papers:05d} speeds up the KV cache by {serial % 7 + 1}x.\n")
        write_file(root, rel, text, local(day, hour, minute))
    entries = [("2610.00000", "vLLM paged attention", END - dt.timedelta(days=20)),
               ("2610.00001", "SGLang radix cache", END - dt.timedelta(days=20))]
    write_file(root, "organized/knowledge/inference.md", knowledge_document("inference", entries, None),
               local(END - dt.timedelta(days=1), 12))
