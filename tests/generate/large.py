"""Large generated workspaces (benchmarks and scale tests), in the note styles of the sample
workspace, deterministic from a seed; their text and note styles are in tests/generate/large_notes.py.

`generate(root, notes=10_000, seed=1)` writes under `root`:
- `inbox/<author>/…` notes spread over `days` dates ending at `end` (~10 KB each on average, so
  10,000 notes are ~100 MB), in five styles taken from the sample workspace: Jay's screening
  notes (`## 条目N · Title（arXiv:…）` + a summary table), Tom's HF Daily lists (`条目N · ▲votes`,
  kind hf_daily), Spark's e1prep with YAML front matter (`## 增量 N · …` + a card table), Tom's
  E1 briefings with pseudo-headings only (`一、…`, `增量 1 · …`), and Lena's English reading notes
  with a numbers table. Names carry `YYYY-MM-DDTHHMM`, `YYYY-MM-DD-HHMM` or a date only; a few
  have no date (mtime basis). A few are GB18030, a few CRLF, a few empty or binary (error rows).
- `organized/paper_cards/NNNN-YYMM-NNNNN.md`: one card per `notes_per_card` notes;
- `organized/queue/work-queue.md`: one 15-row snapshot per date (newest first);
- `organized/knowledge/inference.md`: a living document with `anchors` dated anchors in numbered
  sections (thousands by default) plus a References list.
arXiv ids come from a per-day pool of papers (`YYMM.NNNNN` of that day's month): a note names
mostly the last week's papers and some older ones; the knowledge document anchors papers a few
days after they appeared, so a date's briefing has NET-new and already-anchored ids.

Nothing depends on the clock or on hash order: the same arguments give the same bytes (mtimes are
set from each file's own date, the rule of tests/generate/files.py). `add_notes` writes more notes
for one date (the daily benchmark), `feed_bodies` builds an HF Daily JSON answer and an arXiv RSS
listing for a date from the same pool.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from tests.generate.documents import QUEUE, anchored, card, card_path, cited, queue_row, queue_snapshot
from tests.generate.files import local, write_file
from tests.generate.large_notes import (
    KNOWLEDGE_SECTIONS,
    PAPERS_PER_DAY,
    SECTIONS,
    TOPICS,
    Paper,
    Pool,
    fact,
    note_file,
)

DEFAULT_END = dt.date(2026, 10, 9)


@dataclass
class WorkspaceInfo:
    """What was written: counts and bytes per kind, the dates covered, the papers by day."""

    root: Path
    seed: int
    days: list[dt.date]
    notes: int = 0
    cards: int = 0
    anchors: int = 0
    files: int = 0
    bytes: int = 0
    note_bytes: int = 0
    papers: dict[dt.date, list[Paper]] = field(default_factory=dict)


def _card(rng: random.Random, paper: Paper, number: int) -> tuple[str, str]:
    secondary = sorted({rng.choice(TOPICS) for _ in range(rng.randrange(1, 3))} - {paper.topic}) or ["engineering"]
    votes = rng.randrange(3, 120)
    body = "\n".join([f"**TL;DR** {fact(rng, paper)}；{fact(rng, paper)}。", "",
                      f"- arXiv: https://arxiv.org/abs/{paper.arxiv_id}", f"- 卡片 #{number}", ""])
    return card_path(number, paper.arxiv_id), card(paper.arxiv_id, paper.title, paper.topic, secondary, paper.day,
                                                   body, votes=votes)


def _queue(rng: random.Random, pool: Pool, days: list[dt.date]) -> str:
    out = ["# Work Queue · 高价值待深度解读", "",
           "> 每晚 22:00 由 radar 生成一次快照（新快照在上）。排序 = HF 票数 × 新鲜度 × 主题权重。", ""]
    for day in reversed(days):
        rows = []
        for rank, paper in enumerate(pool.recent(rng, day, 15), 1):
            note = rng.choice(["承接", f"HF {rng.randrange(10, 99)}▲", "新入队（无卡）", f"新卡 {rng.randrange(1500, 9999)}"])
            rows.append(queue_row(rank, paper.arxiv_id, paper.title, paper.topic, rng.choice(TOPICS), note))
        out += [*queue_snapshot(day, rows), "", "无主分类 inference 新增。" if rng.random() < 0.5 else "", ""]
    return "\n".join(out)


def _knowledge(rng: random.Random, pool: Pool, days: list[dt.date], anchors: int) -> tuple[str, int]:
    """inference.md with `anchors` dated anchors (entries name one or two ids) and a References list."""
    end = days[-1]
    candidates = [p for d in days for p in pool.by_day[d]]
    rng.shuffle(candidates)
    # Inference papers first, so the body is mostly about the topic.
    candidates.sort(key=lambda p: p.topic != "inference")
    chosen, refs = candidates[:anchors], candidates[anchors : anchors + max(20, anchors // 20)]
    subsections = [(major, number, title) for major, subs in KNOWLEDGE_SECTIONS for number, title in subs]
    by_sub: dict[str, list[str]] = {number: [] for _, number, _ in subsections}
    written, k = 0, 0
    while k < len(chosen):
        paper = chosen[k]
        day = min(end, paper.day + dt.timedelta(days=rng.randrange(1, 15)))
        pair = chosen[k + 1] if rng.random() < 0.2 and k + 1 < len(chosen) else None
        ids = [paper.arxiv_id] + ([pair.arxiv_id] if pair else [])
        line = anchored(paper.name, day, ids, f"：{fact(rng, paper)}；{fact(rng, paper)}。")
        by_sub[rng.choice(subsections)[1]].append(line)
        step = 2 if pair else 1
        written += step
        k += step
    updates = days[-6:][::-1]
    out = ["# inference · 知识活文档（Living Doc）", "",
           f"version: v{300 + len(days)} · updated: {end.isoformat()} 12:00 · citations: {written + len(refs)}", "",
           "> 锚定规则：正文每条以 `[anchored YYYY-MM-DD]` 标注合入正文的日期（午间更新日）。", "",
           "## 更新记录（近 6 次）", "", "| 午间更新 | 合入内容 | 引用数 |", "|---|---|---|"]
    total = written + len(refs)
    for n, day in enumerate(updates):
        out.append(f"| {day.isoformat()} 12:00 | 合入前一晚 E1 增量（§{rng.choice(SECTIONS)}） | {total - 3 * (n + 1)} → {total - 3 * n} |")
    out += ["", "---", ""]
    current_major = None
    for major, number, title in subsections:
        if major != current_major:
            out += [f"## {major}", ""]
            current_major = major
        out += [f"### {number} {title}", "", *by_sub[number], ""]
    out += ["---", "", "## References", "", "> 已引用、正文尚未展开。", ""]
    out += [cited(p.arxiv_id, min(end, p.day + dt.timedelta(days=2)), p.title) for p in refs]
    out.append("")
    return "\n".join(out), written


def _write(root: Path, rel: str, data: str | bytes, at: dt.datetime, info: WorkspaceInfo) -> int:
    """Write one file, counting it in `info`; returns its size."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    write_file(root, rel, raw, at)
    info.files += 1
    info.bytes += len(raw)
    return len(raw)


def generate(
    root: Path,
    notes: int = 10_000,
    seed: int = 1,
    end: dt.date = DEFAULT_END,
    days: int = 365,
    notes_per_card: int = 10,
    anchors: int = 3000,
) -> WorkspaceInfo:
    """Write a workspace of `notes` notes over the `days` dates ending at `end`; returns what was written."""
    rng = random.Random(seed)
    dates = [end - dt.timedelta(days=n) for n in range(days - 1, -1, -1)]
    pool = Pool(seed, dates[0] - dt.timedelta(days=130), end + dt.timedelta(days=3))
    info = WorkspaceInfo(root=root, seed=seed, days=dates)
    info.papers = pool.by_day
    for serial in range(notes):
        day = dates[serial * len(dates) // notes]  # evenly spread, in date order
        rel, data, written = note_file(rng, pool, day, serial)
        info.note_bytes += _write(root, rel, data, written, info)
        info.notes += 1
    cards = notes // notes_per_card
    for k in range(cards):
        day = dates[k * len(dates) // max(cards, 1)]
        rel, text = _card(rng, rng.choice(pool.by_day[day]), 1000 + k)
        _write(root, rel, text, local(day, 12), info)
        info.cards += 1
    evening = local(end, 22)
    _write(root, QUEUE, _queue(rng, pool, dates), evening, info)
    knowledge, info.anchors = _knowledge(rng, pool, dates, anchors)
    _write(root, "organized/knowledge/inference.md", knowledge, evening, info)
    _write(root, "inbox/jay/.DS_Store", bytes(range(256)) * 4, evening, info)  # a binary non-note: an error row
    return info


def add_notes(root: Path, day: dt.date, count: int, seed: int = 1, info: WorkspaceInfo | None = None) -> list[str]:
    """Write `count` new notes dated `day` (before its 22:20 cutoff); returns their relative paths."""
    rng = random.Random(seed * 104729 + day.toordinal())
    pool = Pool(seed, day - dt.timedelta(days=130), day + dt.timedelta(days=3))
    target = info or WorkspaceInfo(root=root, seed=seed, days=[day])
    written = []
    for k in range(count):
        rel, data, _ = note_file(rng, pool, day, 900_000 + k)
        minutes = 7 * 60 + k * (15 * 60 - 1) // max(count, 1)  # 07:00 .. 21:59, before the cutoff
        folder = rel.rsplit("/", 1)[0]
        rel = f"{folder}/{day.isoformat()}T{minutes // 60:02d}{minutes % 60:02d}-new-{k}.md"
        _write(root, rel, data or b"# empty\n", local(day, minutes // 60, minutes % 60), target)
        written.append(rel)
    return written


def feed_bodies(day: dt.date, seed: int = 1, items: int = 50) -> tuple[bytes, bytes]:
    """(HF Daily JSON answer, arXiv RSS listing) for `day`, naming papers of the generator's pool."""
    pool = Pool(seed, day - dt.timedelta(days=130), day + dt.timedelta(days=3))
    rng = random.Random(seed + day.toordinal())
    papers = rng.sample(pool.by_day[day] + pool.by_day[day - dt.timedelta(days=1)], min(items, 2 * PAPERS_PER_DAY))
    hf = [{"paper": {"id": p.arxiv_id, "title": p.title, "summary": f"{fact(rng, p)}. " * 8,
                     "upvotes": rng.randrange(1, 150), "authors": [{"name": f"Author {k}"} for k in range(4)]},
           "title": p.title} for p in papers]
    pub = dt.datetime.combine(day, dt.time(0), tzinfo=ZoneInfo("America/New_York")).strftime("%a, %d %b %Y %H:%M:%S %z")
    entries = "".join(
        f"<item><title>{p.title}</title><link>https://arxiv.org/abs/{p.arxiv_id}</link>"
        f"<description>arXiv:{p.arxiv_id}v1 Announce Type: new \nAbstract: {fact(rng, p)}.</description>"
        f"<guid isPermaLink=\"false\">oai:arXiv.org:{p.arxiv_id}v1</guid><category>cs.LG</category>"
        f"<pubDate>{pub}</pubDate><arxiv:announce_type>new</arxiv:announce_type>"
        f"<dc:creator>Author A, Author B</dc:creator></item>"
        for p in papers
    )
    rss = (
        '<?xml version="1.0" encoding="UTF-8"?><rss xmlns:arxiv="http://arxiv.org/schemas/atom" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0"><channel><title>cs.LG updates on arXiv.org</title>'
        f"<link>http://rss.arxiv.org/rss/cs.LG</link><description>cs.LG</description><pubDate>{pub}</pubDate>"
        f"{entries}</channel></rss>"
    )
    return json.dumps(hf, ensure_ascii=False).encode("utf-8"), rss.encode("utf-8")
