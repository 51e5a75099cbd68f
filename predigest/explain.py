"""`predigest explain`: why each paper of a briefing window has its status, for any run.

It takes the window flags `run` takes (`--date`, default the latest closed window, as `run`; `--since`,
overriding the window's start; the topic's schedule gives the rest, so a Monday after a skipped
Sunday is a 48-hour window), ingests the workspace as `run` does, and judges the window as the
briefing does. For each paper (or only the ids asked for) it shows the status, the decision for the
topic and its reason, every topic's total and every piece of evidence (source, line, kind, topic,
weight), the statements that bound to the paper with file and line first. The window is printed in
the topic's timezone. `--json` gives the same as data; the JSON twin of a briefing carries the
evidence too (`evidence`). A last table says, per increment, where the noon merge proposal puts it
and why (the section match and its neighbours), and what the proposal against the document as it
is now does with it (`merge_placements`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from predigest.explain_items import item_records, items_text
from predigest.explain_lines import SourceLines
from tasks.common.arxiv_ids import canonicalize, find_ids
from tasks.common.item_keys import key_prefix

STATUSES = ("net_new", "adjacent", "already_anchored", "reference_list_only", "off_topic")
# Evidence kinds that are something a source says about the paper (shown with file and line).
# A reader's verdict leads: it decides before any other evidence (`tasks.judge.reader`).
STATEMENT_KINDS = ("reader_verdict", "owner_statement", "handoff_statement", "missing_statement", "taken_statement", "stated_primary",
                   "stated_secondary", "exclusion", "adjacency")


def add_parser(sub: Any, date_type: Any, datetime_type: Any) -> None:
    explain = sub.add_parser("explain", help="why each paper got its status (decision, evidence, statements)",
                             description="Explain a briefing's window: the window flags are run's.")
    explain.add_argument("--workspace", help="workspace root (default: PREDIGEST_WORKSPACE)")
    explain.add_argument("--date", type=date_type, default=None, metavar="YYYY-MM-DD",
                         help="briefing date (default: the latest closed window, as for run)")
    explain.add_argument("--since", type=datetime_type, default=None, metavar="DATETIME",
                         help="override the window start (ISO datetime; without an offset, the topic's timezone)")
    explain.add_argument("--topic", action="append", metavar="T",
                         help="topic whose briefing to explain (repeatable; default: every knowledge document)")
    explain.add_argument("--lang", choices=("zh", "en"), default=None, help="wording of the reasons (default zh)")
    explain.add_argument("--rehash", action="store_true", help="read and hash every stored file (as run --rehash)")
    explain.add_argument("--json", action="store_true", help="print the evidence table as JSON")
    explain.add_argument("ids", nargs="*", help="arXiv ids or item keys (p-…, e-…) to explain "
                                                "(default: every paper in the window)")
    explain.set_defaults(func=cmd_explain)


def _cell(value: object) -> str:
    return str(value).replace("|", "/").replace("\n", " ")


def _canonical(raw: str) -> str:
    """An id as asked for ("arXiv:2609.39334v2", a URL, "2609.39334") in canonical form, else as given."""
    if key_prefix(raw):
        return raw.strip().lower()
    found = [m.canonical for m in find_ids(raw) if m.canonical] or [(canonicalize(raw) or (raw, None))[0]]
    return found[0]


def _latest_closed(topic: Any) -> dt.date:
    """The date `run` briefs when given none: the topic's latest window whose cutoff has passed."""
    from tasks.model.windows import latest_closed_date

    return latest_closed_date(topic.schedule, topic.timezone, dt.datetime.now(dt.UTC))


def paper_record(p: Any, lines: SourceLines, L: dict[str, str]) -> dict[str, Any]:
    """One paper as explain shows it: status, decision, every topic's total, evidence with lines."""
    from tasks.render.labels import reason_text

    evidence = [{**e.as_dict(), "line": lines.line_of(e, p.arxiv_id)}
                for e in sorted(p.evidence, key=lambda e: (e.kind != "reader_verdict", -abs(e.weight), e.path, e.kind,
                                                           e.topic, e.detail))]
    return {
        "arxiv_id": p.arxiv_id, "title": p.title, "status": p.status, "decision": p.decision,
        "reason": reason_text(p.reason, L), "rests_on": p.owner, "scores": dict(p.scores),
        "statements": [e for e in evidence if e["kind"] in STATEMENT_KINDS], "evidence": evidence,
    }


def explanations(settings: Any, workspace: Path, topics: Sequence[str] | None, day: dt.date | None,
                 since: dt.datetime | None, ids: Sequence[str]) -> list[dict[str, Any]]:
    """Per topic, the window (in the topic's timezone) and its papers' records (ingesting first)."""
    from db.engine import get_engine, session_scope
    from tasks.render.labels import LABELS
    from tasks.stages.briefed_topics import topics_for, window_of
    from tasks.stages.briefings import render_briefing
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace
    from tasks.window.collect import collect_window
    from tasks.window.papers import judge_window

    ref = register_workspace(settings, workspace)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    L = LABELS.get(settings.lang, LABELS["zh"])
    lines = SourceLines(workspace)
    wanted = [_canonical(i) for i in ids]
    out = []
    for topic in topics_for(settings, workspace, list(topics) if topics else None):
        window = window_of(topic, day or _latest_closed(topic), since)
        with session_scope(get_engine(settings)) as session:
            data = collect_window(session, ref.id, topic.name, window, topic.schedule)
        papers = [p for p in judge_window(data, topic) if not wanted or p.arxiv_id in wanted]
        twin = json.loads(render_briefing(settings, ref, topic, window)[1])
        items = item_records(twin, [w for w in wanted if key_prefix(w)])
        found = {p.arxiv_id for p in papers} | {r["item_key"] for r in items}
        out.append({
            "topic": topic.name, "date": window.date.isoformat(),
            "window": {"start": window.start_local.isoformat(), "end": window.cutoff_local.isoformat(),
                       "timezone": window.timezone},
            "counts": {s: sum(p.status == s for p in papers) for s in STATUSES},
            "papers": [paper_record(p, lines, L) for p in papers],
            "items": items,
            "not_in_window": [i for i in wanted if i not in found],
            "noon_merge": merge_placements(twin, workspace, wanted),
        })
    return out


def merge_placements(twin: dict[str, Any], workspace: Path, wanted: Sequence[str] = ()) -> dict[str, Any]:
    """Per increment: where the noon merge proposal puts it and why (the briefing's section match and
    neighbours), and what the proposal against the document as it is now does with it."""
    from tasks.merge.proposal import make_proposal

    merge = twin.get("knowledge_merge") or {}
    if not merge.get("diff"):
        return {"merge_at": merge.get("merge_at"), "diff": None, "increments": []}
    try:
        proposal = make_proposal(twin, workspace)
        actions = {p.key: f"{p.action}: {p.why}" for p in proposal.placements} if proposal else {}
    except (OSError, ValueError) as exc:  # ValueError: not text the merge could write back unchanged
        actions = {"": f"the document cannot be read: {exc}"}
    rows = []
    for inc in twin.get("increments") or []:
        placed, key = inc.get("merge"), inc.get("arxiv_id") or inc.get("title")
        if not placed or (wanted and key not in wanted):
            continue
        rows.append({"increment": key, "into": placed["into"], "section": placed.get("section"),
                     "basis": placed.get("basis"), "neighbours": list(placed.get("neighbours") or []),
                     "proposal_now": actions.get(str(key), actions.get(""))})
    return {"merge_at": merge.get("merge_at"), "diff": merge["diff"], "increments": rows}


def merge_text(merge: dict[str, Any]) -> list[str]:
    """The noon merge placements as the text's last table."""
    if not merge["diff"]:
        return ["## noon merge · nothing to merge in this briefing; no proposal"]
    out = [f"## noon merge · at {merge['merge_at']} · proposal `{merge['diff']}`", "",
           "| increment | into | section | basis | neighbours | proposal now |", "|---|---|---|---|---|---|"]
    out += [f"| {_cell(r['increment'])} | {r['into']} | {_cell(r['section'] or '— (a marked section at the end)')} "
            f"| {r['basis'] or '—'} | {_cell(', '.join(r['neighbours']) or '—')} | {_cell(r['proposal_now'] or '—')} |"
            for r in merge["increments"]]
    return out


def _where(e: dict[str, Any]) -> str:
    return f"{e['path']}:{e['line']}" if e.get("line") else e["path"]


def evidence_text(explained: dict[str, Any]) -> str:
    """One topic's explanation as text: a header with the window, then one block per paper."""
    w = explained["window"]
    out = [f"# {explained['topic']} · {explained['date']} · window {w['start']} → {w['end']} ({w['timezone']})",
           "# " + ", ".join(f"{s} {n}" for s, n in explained["counts"].items()), ""]
    for p in explained["papers"]:
        out.append(f"## {p['arxiv_id']} · {p['status']} · {p['decision']} · {p['reason']}")
        out.append(p["title"])
        out.append("topics: " + ", ".join(f"{t} {s:g}" for t, s in sorted(p["scores"].items(), key=lambda kv: -kv[1]))
                   + (f" · rests on {p['rests_on']}" if p["rests_on"] else ""))
        out += [f"- {_where(e)} · {e['kind']} · {e['topic']} · 「{_cell(e['detail'])}」" for e in p["statements"]]
        out += ["", "| source | line | kind | topic | weight | detail |", "|---|---|---|---|---|---|"]
        out += [f"| {_cell(e['path'])} | {e['line'] or ''} | {e['kind']} | {e['topic']} | {e['weight']:g} | "
                f"{_cell(e['detail'])[:80]} |" for e in p["evidence"]]
        out.append("")
    out += items_text(explained.get("items") or [])
    if explained["not_in_window"]:
        out += ["not in this window: " + ", ".join(explained["not_in_window"]), ""]
    out += merge_text(explained["noon_merge"])
    return "\n".join(out)


def explain(settings: Any, workspace: Path, topic_name: str, day: dt.date | None, ids: Sequence[str],
            since: dt.datetime | None = None) -> str:
    """The text explanation of one topic's window."""
    (explained,) = explanations(settings, workspace, [topic_name], day, since, ids)
    return evidence_text(explained) + "\n"


def cmd_explain(args: argparse.Namespace) -> int:
    from predigest.cli_checks import check_topics, check_workspace
    from predigest.orchestrate import settings_for

    settings = settings_for(args.workspace, args.lang, True if args.rehash else None)
    root = check_workspace(settings.workspace, "explain")
    check_topics(settings, root, args.topic)
    explained = explanations(settings, root, args.topic, args.date, args.since, args.ids)
    if args.json:
        print(json.dumps({"workspace": str(root), "explanations": explained}, ensure_ascii=False, indent=1,
                         sort_keys=True))
    else:
        print("\n".join(evidence_text(e) for e in explained))
    return 0

