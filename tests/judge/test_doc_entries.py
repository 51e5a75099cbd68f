"""Contract of a knowledge-document section's entries (`tasks.judge.sections.doc_sections`): an entry
is its whole list item, so an `[anchored D]` written on a wrapped line dates it; nested bullets take
their parent's date; a bullet-like line inside fenced code is no entry. Ingest stores them with the
section (read from the document's one parse); a section stored before that is read from its text,
with the same entries."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from tasks.config.judgment import default_judgment
from tasks.ingest.rows import snapshot_fields
from tasks.judge.sections import doc_sections
from tasks.knowledge.parse import parse_knowledge

J = default_judgment()
TEXT = """- **PipeServe (arXiv:2611.03456)**: pipelined prefill interleaved with decode, P99 TTFT -35%
  at 2K prompts (longer prompts not reported). [anchored 2026-11-06]
  - nested note on the setup
- **KVShare (arXiv:2610.05555)**: cross-request KV reuse. [anchored 2026-11-04]

```
- not an entry [anchored 2026-01-01]
```
"""


STORED = snapshot_fields(parse_knowledge(f"## §1 Engines\n\n{TEXT}", ZoneInfo("UTC")), "inference")["sections"]


def _entries(day: dt.date, stored: bool = True) -> list[tuple[str, dt.date | None]]:
    sections = STORED if stored else [{k: v for k, v in s.items() if k != "entries"} for s in STORED]
    return [(e.name, e.anchored_on) for s in doc_sections(sections, day, False, J) for e in s.entries]


@pytest.mark.parametrize("day", [dt.date(2026, 11, 4), dt.date(2026, 11, 6)])
def test_a_section_stored_before_its_entries_reads_the_same_entries(day: dt.date) -> None:
    assert "entries" in STORED[0] and _entries(day, stored=False) == _entries(day)


def test_an_anchor_on_a_wrapped_line_dates_its_entry() -> None:
    assert _entries(dt.date(2026, 11, 6)) == [
        ("PipeServe (arXiv:2611.03456)", dt.date(2026, 11, 6)),
        ("nested note on the setup", dt.date(2026, 11, 6)),
        ("KVShare (arXiv:2610.05555)", dt.date(2026, 11, 4)),
    ]
    assert _entries(dt.date(2026, 11, 5)) == [("KVShare (arXiv:2610.05555)", dt.date(2026, 11, 4))]
