"""`predigest score`: compare briefings with labelled evenings, per category, and gate on the figures.

With --workspace it briefs every labelled evening in-process (ingest, verifications through the
date, the briefing's JSON twin, nothing published) and scores it; with --json it scores twins that
were published already. It exits 1 when a figure falls below --min or below a --baseline file.
A workspace with reader feedback (`organized/feedback/*.md`; `--feedback` asks for it without
--expected) is scored too: each verdict against the briefing it answers, as of its cutoff, and how
often readers overruled the tool per category (`tasks.score.overruled`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    score = sub.add_parser(
        "score", help="score briefings against labelled evenings, per category",
        description="Brief each labelled evening of --expected (or read --json twins) and score it.")
    score.add_argument("--expected", metavar="DIR", help="folder of labelled evenings (YYYY-MM-DD.json)")
    score.add_argument("--feedback", action="store_true",
                       help="with --workspace: score its reader feedback as partial labels (the default when it "
                            "has any), --expected then optional")
    score.add_argument("--workspace", metavar="PATH", help="workspace to brief each labelled evening from")
    score.add_argument("--json", nargs="+", metavar="FILE", dest="twins",
                       help="published JSON twins to score instead of briefing a workspace")
    score.add_argument("--topic", action="append", metavar="T", help="only the labels of this topic (repeatable)")
    score.add_argument("--min", default="", metavar="SPEC",
                       help="fail below these figures, e.g. net_new=1.0,pending.recall=0.9 (a category alone: "
                            "its lower figure)")
    score.add_argument("--baseline", metavar="FILE", help="fail when any figure of this baseline file falls")
    score.add_argument("--write-baseline", metavar="FILE", help="write this run's figures as a baseline file")
    score.add_argument("--keep", metavar="DIR", help="with --workspace: also write each evening's JSON twin "
                                                      "to DIR/<topic>/<date>.json (to score again with --json)")
    score.add_argument("--lang", choices=("zh", "en"), default=None, help="briefing language (default zh)")
    score.set_defaults(func=cmd_score)


def _briefed(settings: Any, root: Path, evenings: list[tuple[str, dt.date]]) -> dict[tuple[str, dt.date], dict[str, Any]]:
    """The JSON twin of each evening (topic, date), rendered as the evening's run would render it."""
    from tasks.stages.briefed_topics import topics_for, window_of
    from tasks.stages.briefings import render_briefing
    from tasks.stages.verifications import derive_verifications
    from tasks.stages.workspace import find_changed_files, ingest_batch, register_workspace

    ref = register_workspace(settings, root)
    ingest_batch(settings, ref, find_changed_files(settings, ref))
    out = {}
    for name, day in evenings:
        (topic,) = topics_for(settings, root, [name])
        window = window_of(topic, day)
        derive_verifications(settings, ref, topic, window.date)
        out[(name, day)] = json.loads(render_briefing(settings, ref, topic, window)[1])
    return out


def _feedback_lines(settings: Any, root: Path, lines: dict[str, list[Any]]) -> list[str]:
    """The readers' verdicts of the workspace scored against the briefings they answer."""
    from predigest.cli_checks import check_topics
    from tasks.score.overruled import answered, overruled_lines, tally

    check_topics(settings, root, sorted(lines))
    return overruled_lines(tally(lines, _briefed(settings, root, answered(lines))))


def _keep(folder: Path, twins: dict[str, dict[str, Any]]) -> None:
    from tasks.common.files import write_atomically

    for key, doc in twins.items():
        path = folder / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True).encode("utf-8") + b"\n")


def _read_twins(paths: list[str]) -> dict[str, dict[str, Any]]:
    out = {}
    for name in paths:
        try:
            doc = json.loads(Path(name).read_text(encoding="utf-8"))
            out[f"{doc['topic']}/{doc['date']}"] = doc
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{name}: not a briefing's JSON twin: {exc}") from exc
    return out


def cmd_score(args: argparse.Namespace) -> int:
    from predigest.cli_checks import UsageError, check_topics, check_workspace
    from tasks.score import gate, report
    from tasks.score.compare import score_evening
    from tasks.score.expected import LabelError, load_labels
    from tasks.score.overruled import feedback_lines

    if bool(args.workspace) == bool(args.twins):
        raise UsageError("score needs either --workspace (to brief each labelled evening) or --json FILE...")
    minimums = gate.parse_minimums(args.min)
    baseline = gate.read_baseline(Path(args.baseline)) if args.baseline else None
    if not args.expected and not (args.feedback and args.workspace):
        raise UsageError("score needs --expected DIR (or --feedback with --workspace)")
    try:
        labels = load_labels(Path(args.expected), args.topic) if args.expected else []
    except LabelError as exc:
        raise UsageError(str(exc)) from exc
    feedback: list[str] = []
    if args.workspace:
        from predigest.orchestrate import settings_for

        settings = settings_for(args.workspace, args.lang)
        root = check_workspace(settings.workspace, "score")
        check_topics(settings, root, sorted({lb.topic for lb in labels}))
        given = {t: v for t, v in feedback_lines(root).items() if not args.topic or t in args.topic}
        if args.feedback and not given:
            raise UsageError(f"{root}: no reader feedback to score (organized/feedback/<topic>.md)")
        if given:
            feedback = _feedback_lines(settings, root, given)
        briefed = _briefed(settings, root, [(lb.topic, lb.date) for lb in labels])
        twins = {f"{t}/{d.isoformat()}": doc for (t, d), doc in briefed.items()}
        if args.keep:
            _keep(Path(args.keep), twins)
    else:
        twins = _read_twins(args.twins)
    scores, lines = [], []
    for label in labels:
        doc = twins.get(label.key)
        if doc is None:
            lines.append(f"== {label.key}: no briefing given for this labelled evening")
            continue
        if doc.get("cutoff") != label.cutoff:
            lines.append(f"== {label.key}: the briefing's cutoff {doc.get('cutoff')} is not the label's {label.cutoff}")
        score = score_evening(doc, label)
        scores.append(score)
        lines += report.evening_lines(score)
    lines += report.summary_lines(scores) if labels else []
    lines += feedback
    short = gate.below_minimums(scores, minimums) + (gate.below_baseline(scores, baseline) if baseline else [])
    if args.write_baseline:
        Path(args.write_baseline).write_text(gate.baseline_text(scores), encoding="utf-8")
        lines.append(f"baseline written: {args.write_baseline}")
    lines += [f"BELOW: {s.line()}" for s in short]
    unscored = len(labels) - len(scores)
    lines.append(f"score: {len(scores)} evenings scored, {unscored} without a briefing, {len(short)} figures below the gate")
    print("\n".join(lines))
    return 1 if short or unscored else 0
