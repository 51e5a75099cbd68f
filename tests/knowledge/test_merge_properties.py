"""Properties of the noon merge on arbitrary documents the parser accepts and arbitrary increments.

- The diff is the change: patching the original with the proposal's hunks gives the proposed
  document byte for byte, and every line outside the hunks' `-`/`+` lines is kept as it was.
- It changes only what a merge may change: removed lines are the header, change-log rows or
  promoted References entries; added lines are the header, one change-log row, entries dated
  with the merge date (`[anchored D]` / `(cited D)`), the marked section's heading, blank lines.
- Applying twice equals applying once (the second proposal changes nothing).
"""

from __future__ import annotations

import datetime as dt
import re
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tasks.knowledge.parse import ParseError, parse_knowledge
from tasks.merge.merged_document import split_lines
from tasks.merge.propose import UNPLACED_HEADING, propose
from tasks.model.noon_merge import MergeIncrement

TZ = ZoneInfo("Asia/Shanghai")
MERGE_AT = dt.datetime(2026, 10, 10, 12, 0, tzinfo=TZ)
DAY = "2026-10-10"
IDS = [f"26{m:02d}.{n:05d}" for m in (7, 8, 9) for n in (101, 202, 303, 404)]
NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Zeta", "Eta"]
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

entry = st.builds(
    lambda name, arxiv, style, day: (
        f"- **{name}**（arXiv:{arxiv}）：text。[anchored 2026-09-{day:02d}]" if style == 0 else
        f"* {name} (arXiv:{arxiv}): text [anchored 2026-09-{day:02d}]" if style == 1 else
        f"- **{name}**: no id here. [anchored 2026-09-{day:02d}]"),
    st.sampled_from(NAMES), st.sampled_from(IDS), st.integers(0, 2), st.integers(1, 28))
section = st.tuples(st.sampled_from(["§1", "§1.1", "§2", "§2.3", "1.", ""]), st.sampled_from(["Engines", "调度", "KV"]),
                    st.lists(entry, max_size=3))
reference = st.builds(lambda arxiv, name: f"- arXiv:{arxiv} — {name}（cited 2026-09-01）",
                      st.sampled_from(IDS), st.sampled_from(NAMES))


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines = ["# doc", ""]
    if draw(st.booleans()):
        lines += [f"version: v{draw(st.integers(1, 400))} · updated: 2026-10-01 12:00 · citations: "
                  f"{draw(st.integers(0, 999))}", ""]
    if draw(st.booleans()):
        rows = draw(st.integers(0, 4))
        lines += [f"## 更新记录（近 {draw(st.integers(1, 4))} 次）", "", "| 午间更新 | 合入内容 | 引用数 |", "|---|---|---|"]
        lines += [f"| 2026-09-{9 - k:02d} 12:00 | row {k} | {k} |" for k in range(rows)] + [""]
    for number, title, entries in draw(st.lists(section, min_size=1, max_size=4)):
        lines += [f"## {number} {title}".replace("  ", " "), "", *entries, ""]
    if draw(st.booleans()):
        lines += ["## References", "", *draw(st.lists(reference, max_size=3))]
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return ("\ufeff" if draw(st.booleans()) else "") + text


# Papers (NET-new, adjacent) have an id; an engineering increment has none (DESIGN.md, Judgment).
increment = st.builds(
    lambda arxiv, name, status, statement, section: MergeIncrement(
        None if status == "engineering" else arxiv, name, status, statement, section),
    st.sampled_from(IDS), st.sampled_from(NAMES), st.sampled_from(["net_new", "engineering", "adjacent"]),
    st.sampled_from(["", "short claim", "另一句。"]),
    st.one_of(st.none(), st.sampled_from(["§1 Engines", "§1.1 调度", "§2.3 KV", "1. KV", "§9 Missing", "KV"])))


def _patch(old: str, diff: str) -> str:
    """Apply a unified diff (as `patch` would) to `old`; asserts the context matches."""
    source, out, at = split_lines(old), [], 0
    lines = split_lines(diff)[2:]
    i = 0
    while i < len(lines):
        m = HUNK.match(lines[i])
        assert m, lines[i]
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out += source[at:start]
        at = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, text = lines[i][0], lines[i][1:]
            if i + 1 < len(lines) and lines[i + 1].startswith("\\ No newline"):
                text = text[:-1]
                i += 1
            if tag in " -":
                assert source[at] == text, (source[at], text)
                at += 1
            if tag in " +":
                out.append(text)
            i += 1
    return "".join(out + source[at:])


def _changed(diff: str, tag: str) -> list[str]:
    return [line[1:].rstrip("\r\n").lstrip("\ufeff") for line in split_lines(diff)[2:]
            if line[:1] == tag and not line.startswith(("+++", "---"))]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), st.lists(increment, max_size=5))
def test_the_diff_is_the_change_and_applying_twice_is_applying_once(text: str, incs: list[MergeIncrement]) -> None:
    try:
        parse_knowledge(text, TZ)
    except ParseError:
        assume(False)  # only documents the parser accepts
    proposal = propose(text, incs, MERGE_AT, briefing_date=dt.date(2026, 10, 9))
    assert _patch(text, proposal.diff) == proposal.document
    removed = _changed(proposal.diff, "-")
    for line in removed:
        assert line.startswith(("version:", "|", "- arXiv:")) or line in _changed(proposal.diff, "+"), line
    for line in _changed(proposal.diff, "+"):
        # (a line in `removed` too is a last line that gained its line ending)
        assert (not line.strip() or line in removed or line.startswith(("version:", "|", UNPLACED_HEADING, "## References"))
                or line.endswith((f"[anchored {DAY}]", f"(cited {DAY})", f"（cited {DAY}）"))), line
    assert proposal.document.startswith("\ufeff") == text.startswith("\ufeff")
    again = propose(proposal.document, incs, MERGE_AT, briefing_date=dt.date(2026, 10, 9))
    assert again.document == proposal.document and not again.changed
