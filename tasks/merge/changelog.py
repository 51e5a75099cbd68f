"""The header line and the change-log row of a noon merge (see tasks.merge.propose).

Only the values change: `version: v310` becomes `v311` (the last number goes up by one),
`updated:` the merge time (`YYYY-MM-DD HH:MM`), `citations:` the new count; the field names,
separators and spacing of the line stay as the document wrote them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from tasks.merge.merged_document import DocLines, body
from tasks.model.noon_merge import MergeIncrement

_VERSION = re.compile(r"(\bversion\s*[:：]\s*[*`]*)([vV]?[0-9][0-9A-Za-z._+-]*)", re.I)
_UPDATED = re.compile(r"(\bupdated\s*[:：]\s*[*`]*)(\d{4}-\d{1,2}-\d{1,2}(?:[ T]+\d{1,2}:\d{2})?)", re.I)
_CITATIONS = re.compile(r"(\bcitations\s*[:：]\s*[*`]*)(\d[\d,]*)", re.I)


def next_version(version: str) -> str:
    """`v310` -> `v311`, `2.1` -> `2.2`, `v2026.10-rc1` -> `v2026.10-rc2`."""
    numbers = list(re.finditer(r"\d+", version))
    if not numbers:
        return version
    last = numbers[-1]
    return f"{version[:last.start()]}{int(last.group(0)) + 1}{version[last.end():]}"


def _count(value: int, like: str) -> str:
    return f"{value:,}" if "," in like else str(value)


def header_line(raw: str, merge_at: dt.datetime, citations: int | None) -> str:
    """The header line with its version, update time and citation count moved on; nothing else touched."""
    line = _VERSION.sub(lambda m: m.group(1) + next_version(m.group(2)), raw, count=1)
    line = _UPDATED.sub(lambda m: m.group(1) + merge_at.strftime("%Y-%m-%d %H:%M"), line, count=1)
    if citations is not None:
        line = _CITATIONS.sub(lambda m: m.group(1) + _count(citations, m.group(2)), line, count=1)
    return line


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def short_name(title: str) -> str:
    """A title's name before its subtitle (`Cascadia: Serving ...` -> `Cascadia`), as the log names things."""
    head = re.split(r"[:：]\s", title, maxsplit=1)[0].strip()
    return head if 1 < len(head) < len(title) else title


def summary(briefing_date: dt.date, merged: Sequence[tuple[MergeIncrement, str]], zh: bool) -> str:
    """What was merged, in the document's language: names and their sections, References apart."""
    body = [(short_name(inc.title), where) for inc, where in merged if not inc.into_references]
    refs = [short_name(inc.title) for inc, _ in merged if inc.into_references]
    if zh:
        text = f"合入 {briefing_date.strftime('%b')} {briefing_date.day} E1：" + "、".join(
            f"{name}（{where}）" for name, where in body)
        return text + (f"；References +{len(refs)}（{' / '.join(refs)}）" if refs else "")
    text = f"Merged the {briefing_date.isoformat()} briefing: " + ", ".join(f"{name} ({where})" for name, where in body)
    return text + (f"; References +{len(refs)} ({', '.join(refs)})" if refs else "")


def changelog_row(cols: dict[str, int | None], merge_at: dt.datetime, briefing_date: dt.date,
                  merged: Sequence[tuple[MergeIncrement, str]], before: int | None, after: int | None,
                  version: str | None, zh: bool) -> str:
    """One change-log row (without its line ending), its cells in the table's own columns."""
    width = max(i for i in cols.values() if i is not None) + 1
    cells = [""] * width
    values = {
        "at": merge_at.strftime("%Y-%m-%d %H:%M"),
        "summary": summary(briefing_date, merged, zh),
        "citations": ("" if after is None else str(after) if before in (None, after) else f"{before} → {after}"),
        "version": next_version(version) if version else "",
    }
    for key, index in cols.items():
        if index is not None:
            cells[index] = _cell(values[key])
    return "| " + " | ".join(cells) + " |"


_KEEP = re.compile(r"近\s*(\d+)\s*次|last\s+(\d+)|(\d+)\s*(?:most recent|updates)", re.I)


def cap_changelog(out: list[str], doc: DocLines, log: tuple[int, int, dict[str, int | None]] | None,
                   log_at: int | None) -> list[str]:
    """Drop the oldest rows beyond what the change log's heading promises to keep."""
    if log is None or log_at is None:
        return out
    above = [h for h in doc.headings if h.index < log[0]]
    m = _KEEP.search(above[-1].text) if above else None
    if m is None:
        return out
    keep = int(next(g for g in m.groups() if g))
    rows = end = log_at + 2
    while end < len(out) and body(out[end]).lstrip().startswith("|"):
        end += 1
    return out[:rows + keep] + out[end:] if end - rows > keep else out
