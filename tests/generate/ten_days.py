"""A small generated workspace of ten consecutive days of notes (orchestration, backfill and site tests).

Contract: `make_workspace(root)` writes, for each of `DAYS` (2026-10-01 .. 2026-10-10):
- `inbox/alice/<date>T1000-alice-serving.md` naming two fresh arXiv ids about inference serving and
  one id that is already a day old (so several days mention the same paper); on the third day one
  claim is hedged (待核实), which raises a verification that ages across the later days;
- `inbox/bob/<date>T1500-bob-rag.md` naming one fresh id about retrieval (topic `rag`);
and two knowledge documents, `organized/knowledge/inference.md` and `rag.md`, which anchor some of
those ids the day after they first appeared (and one id in References), so the same paper is
NET-new on one date and already anchored on a later one: each date's briefing differs.
It returns the ids it used per date. Nothing random: the same call gives the same bytes (mtimes
are the write time: tests/generate/files.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from tests.generate.documents import KNOWLEDGE, knowledge_document
from tests.generate.files import write_file

DAYS = [dt.date(2026, 10, 1) + dt.timedelta(days=n) for n in range(10)]


def serving_ids(day: dt.date) -> tuple[str, str]:
    n = day.day
    return f"2610.{1000 + 2 * n:05d}", f"2610.{1001 + 2 * n:05d}"


def rag_id(day: dt.date) -> str:
    return f"2610.{2000 + day.day:05d}"


def _note(day: dt.date) -> str:
    first, second = serving_ids(day)
    lines = [
        f"# Alice · Serving notes · {day.isoformat()} 10:00",
        "",
        f"## 条目#1 · KV cache offload for vLLM serving (day {day.day})",
        "",
        f"- arXiv:{first} — KV cache 分层卸载，vLLM 上 TTFT 降低 {20 + day.day}%，throughput +{day.day}%。",
        "- 建议：§3 KV Cache。",
        "",
        f"## 条目#2 · Speculative decoding scheduler (day {day.day})",
        "",
        f"- arXiv:{second} — speculative decoding 调度器，SGLang 上 decode 吞吐 +{10 + day.day}%。",
        "- 建议：§1.1 框架格局。",
    ]
    if day == DAYS[2]:
        # A hedged claim: a pending verification that ages across the following days.
        lines.insert(-1, "- 社媒转述：SGLang decode 吞吐 3.1×（待核实，未见原文）。")
    if day > DAYS[0]:
        previous, _ = serving_ids(day - dt.timedelta(days=1))
        lines += [
            "",
            "## 条目#3 · 昨天那篇的复现",
            "",
            f"- arXiv:{previous} 在 H100 上复现：prefill latency 与论文一致。",
        ]
    return "\n".join(lines) + "\n"


def _rag_note(day: dt.date) -> str:
    return "\n".join([
        f"# Bob · RAG notes · {day.isoformat()} 15:00",
        "",
        f"## 条目#1 · Reranker distillation for retrieval (day {day.day})",
        "",
        f"- arXiv:{rag_id(day)} — reranker 蒸馏，RAG 检索 recall@10 +{day.day}%。",
        "",
    ])


def make_workspace(root: Path, also_anchored: Sequence[tuple[str, str, dt.date]] = ()) -> dict[dt.date, list[str]]:
    """Write the workspace under `root`; return the arXiv ids first named on each date. `also_anchored`
    (arXiv id, name, day anchored) adds entries to inference.md's body after its own."""
    used: dict[dt.date, list[str]] = {}
    for day in DAYS:
        stamp = day.isoformat()
        write_file(root, f"inbox/alice/{stamp}T1000-alice-serving.md", _note(day))
        write_file(root, f"inbox/bob/{stamp}T1500-bob-rag.md", _rag_note(day))
        used[day] = [*serving_ids(day), rag_id(day)]
    # Every other day's first paper is merged into the body the next day, when it is named again.
    anchored = [(serving_ids(day)[0], f"KV offload day {day.day}", day + dt.timedelta(days=1)) for day in DAYS[::2]]
    anchored += also_anchored
    write_file(root, f"{KNOWLEDGE}/inference.md",
               knowledge_document("inference", anchored, (serving_ids(DAYS[3])[0], DAYS[4])))
    rag_anchored = [(rag_id(DAYS[1]), "Reranker distillation", DAYS[4])]
    write_file(root, f"{KNOWLEDGE}/rag.md", knowledge_document("rag", rag_anchored, None))
    return used
