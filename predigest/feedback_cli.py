"""`predigest feedback`: record a reader's verdict on an item of a published briefing.

It appends one line to `organized/feedback/<topic>.md` (`tasks.stages.feedback`), which the next
ingest reads: `not-ours` makes a paper not the topic's from the briefing's date on, `ours` makes
it the topic's; `settled` (with a reason or link) resolves a pending item, `not-a-contradiction`
drops one, `not-new` makes an engineering increment confirmatory. A briefing whose cutoff came
before the line was recorded never changes. Exit codes: 0 recorded; 2 refused (unknown topic,
malformed id or key, a key the briefing does not show, no published briefing of that date), with
one line saying why.
"""

from __future__ import annotations

import argparse
import getpass
from typing import Any

from predigest.cli_checks import briefing_arguments
from tasks.inbox.feedback_file import VERDICTS


def add_parser(sub: Any, date_type: Any) -> None:
    feedback = sub.add_parser("feedback", help="record a reader's verdict on a paper or item of a briefing",
                              description="Append a verdict to organized/feedback/<topic>.md (atomically).")
    briefing_arguments(feedback, date_type, "the briefing's topic")
    feedback.add_argument("--reason", default="", metavar="TEXT", help="why (a sentence or a link)")
    feedback.add_argument("--by", default=None, metavar="NAME", help="who gives it (default: the login name)")
    feedback.add_argument("item", metavar="ITEM", help="a paper's arXiv id (2611.00010) or an item key the page shows (p-…, e-…)")
    feedback.add_argument("verdict", choices=VERDICTS,
                          help="papers: ours, not-ours; pending items (p-…): settled (needs --reason), "
                               "not-a-contradiction; engineering increments (e-…): not-new")
    feedback.set_defaults(func=cmd_feedback)


def cmd_feedback(args: argparse.Namespace) -> int:
    from predigest.cli_checks import UsageError, check_topics, check_workspace
    from predigest.orchestrate import settings_for
    from tasks.stages.feedback import FeedbackRefused, record_feedback

    settings = settings_for(args.workspace)
    root = check_workspace(settings.workspace, "feedback")
    check_topics(settings, root, [args.topic])  # an unknown topic: the message `run` gives
    try:
        path, line = record_feedback(settings, root, args.topic, args.date, args.item, args.verdict,
                                     args.by or getpass.getuser(), args.reason)
    except FeedbackRefused as exc:
        raise UsageError(str(exc)) from exc
    print(f"predigest: recorded in {path.relative_to(root)}: {line}")
    return 0
