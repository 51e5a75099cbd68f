"""The shapes of the organized documents a generator writes: paper cards, work-queue snapshots and
knowledge documents (dated anchors and cited references), one spelling of each for every generator."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

CARDS = "organized/paper_cards"
QUEUE = "organized/queue/work-queue.md"
KNOWLEDGE = "organized/knowledge"
_QUEUE_HEAD = ["| # | arXiv | 标题 | 主分类 | 副分类 | 备注 |", "|---|---|---|---|---|---|"]


def card_path(number: int, arxiv_id: str) -> str:
    """Where card `number` about `arxiv_id` lives, workspace-relative."""
    return f"{CARDS}/{number:04d}-{arxiv_id.replace('.', '-')}.md"


def card(arxiv_id: str, title: str, primary: str, secondary: Sequence[str], created: dt.date, body: str,
         votes: int | None = None) -> str:
    """A paper card: YAML front matter (votes only when given), a blank line, then `body`."""
    head = ["---", f'arxiv: "{arxiv_id}"', f'title: "{title}"', f"primary: {primary}",
            f"secondary: [{', '.join(secondary)}]", f"created: {created.isoformat()}"]
    if votes is not None:
        head.append(f"votes: {votes}")
    return "\n".join([*head, "---", "", body])


def queue_row(rank: int, arxiv_id: str, title: str, primary: str, secondary: str, note: str) -> str:
    return f"| {rank} | {arxiv_id} | {title} | {primary} | {secondary} | {note} |"


def queue_snapshot(day: dt.date, rows: Sequence[str]) -> list[str]:
    """The lines of one evening's work-queue snapshot (its 22:00 heading and table)."""
    return [f"## {day.isoformat()} 22:00", "", *_QUEUE_HEAD, *rows]


def anchored(name: str, day: dt.date, ids: Sequence[str] = (), text: str = "。") -> str:
    """A knowledge-document body line: `name`, its arXiv ids, `text`, and the day it was anchored."""
    cite = "（" + "、".join(f"arXiv:{i}" for i in ids) + "）" if ids else ""
    return f"- **{name}**{cite}{text}[anchored {day.isoformat()}]"


def cited(arxiv_id: str, day: dt.date, title: str | None = None) -> str:
    """A References line: cited on `day`, not yet in the body."""
    if title is None:
        return f"- arXiv:{arxiv_id} (cited {day.isoformat()})"
    return f"- arXiv:{arxiv_id} — {title}（cited {day.isoformat()}）"


def knowledge_document(topic: str, entries: Sequence[tuple[str, str, dt.date]],
                       reference: tuple[str, dt.date] | None) -> str:
    """A small knowledge document: `entries` (arXiv id, title, day anchored) in §1.1, at most one
    reference (arXiv id, day cited)."""
    lines = [f"# {topic} · 知识活文档（Living Doc）", "", "version: v1 · updated: 2026-10-12 12:00 · citations: 10", "",
             "## §1 现状全景", "", "### §1.1 框架格局", ""]
    lines += [anchored(title, day, [arxiv_id]) for arxiv_id, title, day in entries]
    lines += ["", "## References", ""]
    if reference is not None:
        lines.append(cited(*reference))
    return "\n".join(lines) + "\n"
