"""`predigest explain`: why each paper of a briefing window has its verdict.

For every paper in the window of (topic, date), or only the ids asked for, it prints the verdict,
the owning topic, the reason and the evidence that decided it (source path, kind of evidence,
topic, weight), as a table. The same evidence is in the briefing's JSON twin (`evidence`).
The workspace is ingested first, as `predigest run` does, so the answer is the briefing's. A last
table says, per increment, where the noon merge proposal puts it and why (`merge_table`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from predigest.arxiv_ids import canonicalize, find_ids


def add_parser(sub: Any, date_type: Any) -> None:
    explain = sub.add_parser("explain", help="why each paper got its verdict (evidence and weights)")
    explain.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    explain.add_argument("--date", type=date_type, required=True, help="briefing date YYYY-MM-DD")
    explain.add_argument("--topic", required=True, help="topic whose briefing to explain")
    explain.add_argument("ids", nargs="*", help="arXiv ids to explain (default: every paper in the window)")
    explain.set_defaults(func=cmd_explain)


def _cell(value: object) -> str:
    return str(value).replace("|", "/").replace("\n", " ")


def evidence_table(papers: Sequence[Any], lang: str = "zh") -> str:
    """One block per paper: verdict line, then its evidence, strongest first (markdown table)."""
    from tasks.briefing.labels import LABELS, reason_text

    L = LABELS.get(lang, LABELS["zh"])
    out: list[str] = []
    for p in papers:
        out.append(f"## {p.arxiv_id} · {p.status} · owner {p.owner or '—'} · {reason_text(p.reason, L)}")
        out.append(f"{p.title}")
        out.append("")
        out.append("| source | kind | topic | weight | detail |")
        out.append("|---|---|---|---|---|")
        for e in sorted(p.evidence, key=lambda e: (-abs(e.weight), e.path, e.kind, e.topic)):
            out.append(f"| {_cell(e.path)} | {e.kind} | {e.topic} | {e.weight:g} | {_cell(e.detail)[:80]} |")
        out.append("")
    return "\n".join(out)


def _canonical(raw: str) -> str:
    """An id as asked for ("arXiv:2609.39334v2", a URL, "2609.39334") in canonical form, else as given."""
    found = [m.canonical for m in find_ids(raw) if m.canonical] or [(canonicalize(raw) or (raw, None))[0]]
    return found[0]


def explain(settings: Any, workspace: Path, topic_name: str, day: dt.date, ids: Sequence[str]) -> str:
    """The evidence tables of the window's papers (ingesting the workspace first)."""
    from db.engine import get_engine, session_scope
    from tasks import run
    from tasks.briefing.collect import collect_window
    from tasks.briefing.judge import judge_window

    ref = run.register_workspace(settings, workspace)
    run.ingest_batch(settings, ref, run.find_changed_files(settings, ref))
    (topic,) = run.topics_for(settings, workspace, [topic_name])
    window = run.window_of(topic, day)
    with session_scope(get_engine(settings)) as session:
        data = collect_window(session, ref.id, topic.name, window)
    papers = judge_window(data, topic, run.known_topic_names(settings, workspace))
    wanted = [_canonical(i) for i in ids]
    if wanted:
        papers = [p for p in papers if p.arxiv_id in wanted]
    head = (f"# {topic.name} · {day.isoformat()} · window {window.start.isoformat()} → {window.end.isoformat()}\n"
            f"# verdicts: " + ", ".join(f"{s} {sum(p.status == s for p in papers)}" for s in
                                        ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic"))
            + "\n")
    missing = [i for i in wanted if i not in {p.arxiv_id for p in papers}]
    tail = ("\nnot in this window: " + ", ".join(missing) + "\n") if missing else ""
    _, twin = run.render_briefing(settings, ref, topic, window)
    return head + "\n" + evidence_table(papers, settings.lang) + tail + "\n" + merge_table(
        json.loads(twin), workspace, wanted)


def merge_table(twin: dict[str, Any], workspace: Path, wanted: Sequence[str] = ()) -> str:
    """Per increment: where the noon merge proposal puts it and why (the briefing's section match and
    neighbours), and what the proposal against the document as it is now does with it."""
    from tasks.publish.proposal import make_proposal

    merge = twin.get("knowledge_merge") or {}
    if not merge.get("diff"):
        return "## noon merge · nothing to merge in this briefing; no proposal\n"
    try:
        proposal = make_proposal(twin, workspace)
        actions = {p.key: f"{p.action}: {p.why}" for p in proposal.placements} if proposal else {}
    except (OSError, UnicodeDecodeError) as exc:
        actions = {"": f"the document cannot be read: {exc}"}
    out = [f"## noon merge · at {merge.get('merge_at')} · proposal `{merge['diff']}`", "",
           "| increment | into | section | basis | neighbours | proposal now |", "|---|---|---|---|---|---|"]
    for inc in twin.get("increments") or []:
        placed, key = inc.get("merge"), inc.get("arxiv_id") or inc.get("title")
        if not placed or (wanted and key not in wanted):
            continue
        out.append(f"| {_cell(key)} | {placed['into']} | {_cell(placed.get('section') or '— (a marked section at the end)')} "
                   f"| {placed.get('basis') or '—'} | {_cell(', '.join(placed.get('neighbours') or []) or '—')} "
                   f"| {_cell(actions.get(str(key), actions.get('', '—')))} |")
    return "\n".join(out) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    from predigest.orchestrate import settings_for

    settings = settings_for(args.workspace)
    if settings.workspace is None:
        print("predigest: no workspace; pass --workspace or set PREDIGEST_WORKSPACE", file=sys.stderr)
        return 2
    print(explain(settings, Path(settings.workspace), args.topic, args.date, args.ids))
    return 0
