"""`predigest merge`: review a briefing's noon merge proposal, or apply it to the knowledge document.

It shows the proposal (its `#` lines, then the unified diff, coloured on a terminal) of the
published briefing of (topic, date), made against the document as it is now; `--only` and
`--skip` choose increments by arXiv id or name; `--apply` writes the document atomically, only
if it is still the one the proposal was made from. Exit codes: 0 shown, applied or nothing to
do; 1 no published briefing or an unreadable document; 2 a stale proposal (file untouched) or a
usage error. The stage is `tasks.merge.merge_stage`; nothing here decides anything.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from predigest.cli_checks import briefing_arguments

_COLOURS = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m", "#": "\033[2m"}


def add_parser(sub: Any, date_type: Any) -> None:
    merge = sub.add_parser("merge", help="review or apply a briefing's noon merge proposal",
                           description="Show the merge proposal of a published briefing; --apply writes it.")
    briefing_arguments(merge, date_type, "topic whose knowledge document to merge into")
    merge.add_argument("--only", type=_names, default=[], metavar="ID|NAME,...", help="merge only these increments")
    merge.add_argument("--skip", type=_names, default=[], metavar="ID|NAME,...", help="leave these increments out")
    merge.add_argument("--apply", action="store_true", help="write the proposed document (atomically)")
    merge.set_defaults(func=cmd_merge)


def _names(value: str) -> list[str]:
    """`2610.07219,EdgeServe` -> ids (canonical, so `arXiv:2610.07219v2` works too) and names."""
    from tasks.common.arxiv_ids import find_ids

    out = []
    for part in (p.strip() for p in value.split(",")):
        found = [m.canonical for m in find_ids(part) if m.canonical]
        out += found[:1] or ([part] if part else [])
    return out


def colour(text: str) -> str:
    """The diff with added lines green, removed red, hunks cyan, comments dim (ANSI)."""
    out = []
    for line in text.splitlines(keepends=True):
        code = _COLOURS.get(line[:1]) if not line.startswith(("+++", "---")) else "\033[1m"
        out.append(f"{code}{line.rstrip(chr(10))}\033[0m\n" if code else line)
    return "".join(out)


def cmd_merge(args: argparse.Namespace) -> int:
    from predigest.cli_checks import check_topics
    from predigest.orchestrate import settings_for
    from tasks.merge.merge_stage import merge_knowledge

    settings = settings_for(args.workspace)
    if settings.workspace is None:
        print("predigest: no workspace; pass --workspace or set PREDIGEST_WORKSPACE", file=sys.stderr)
        return 2
    check_topics(settings, Path(settings.workspace), [args.topic])  # an unknown topic: the message `run` gives
    outcome = merge_knowledge(settings, Path(settings.workspace), args.topic, args.date, args.only, args.skip,
                              args.apply)
    if outcome.text and outcome.status not in ("stale", "refused"):
        sys.stdout.write(colour(outcome.text) if sys.stdout.isatty() else outcome.text)
    print(f"predigest: {outcome.message}", file=sys.stderr if outcome.exit_code else sys.stdout)
    return outcome.exit_code
