"""What the CLI checks before it starts any flow, and how it words a failure in one line.

Contract:
- `UsageError` is a mistake in what the user asked (a missing workspace, an unknown topic, a bad
  storage URL): the CLI prints `predigest: <message>` as one line on stderr and exits 2.
- `check_workspace` wants an existing directory holding `inbox/` or `organized/`; `check_topics`
  wants at least one topic and every requested one known (a knowledge document in the workspace,
  configured in a topics file, or in PREDIGEST_TOPICS), refuses a topic that has no knowledge
  document (`tasks.config.topics.no_document`: its briefing would have no baseline), and on an
  all-topics run prints each `organized/knowledge/*.md` that is no topic (a symlink, a directory, a
  fifo, an unsafe name) with its reason; `check_storage` opens the storage URL without writing and
  refuses a folder that publishes another workspace's briefings. All of them run before Prefect
  starts, so no flow traceback is ever logged.
- `one_line(exc)` is the message of any other failure, squeezed onto one line.
"""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # `predigest --help` and argument errors need no settings (pydantic)
    from tasks.config.settings import Settings

EXAMPLE_WORKSPACE = "examples/workspace"


class UsageError(Exception):
    """A request the CLI refuses before doing anything; its message is the whole explanation."""


def briefing_arguments(parser: Any, date_type: Any, topic_help: str) -> None:
    """--workspace, --topic and --date of a command about one published briefing (merge, feedback)."""
    parser.add_argument("--workspace", metavar="PATH", help="workspace root (default: PREDIGEST_WORKSPACE)")
    parser.add_argument("--topic", required=True, metavar="T", help=topic_help)
    parser.add_argument("--date", type=date_type, required=True, metavar="YYYY-MM-DD", help="the briefing's date")


def check_workspace(workspace: Path | None, command: str, why: str = "") -> Path:
    """The workspace root, resolved; UsageError when it is unset, missing or not a workspace."""
    if workspace is None:
        raise UsageError(f"{command} needs a workspace{why}: pass --workspace PATH or set PREDIGEST_WORKSPACE")
    root = Path(workspace).expanduser().resolve()
    if not root.exists():
        raise UsageError(f"workspace not found: {root}")
    if not root.is_dir():
        raise UsageError(f"workspace is not a directory: {root}")
    if not (root / "inbox").is_dir() and not (root / "organized").is_dir():
        raise UsageError(
            f"not a predigest workspace: {root} has neither inbox/ nor organized/ (see {EXAMPLE_WORKSPACE})"
        )
    return root


def check_topics(settings: Settings, workspace: Path, requested: list[str] | None) -> list[str]:
    """The topics a run will brief; UsageError for none at all or for a requested one nobody knows."""
    import sys

    from tasks.common.safe_text import visible
    from tasks.config.topics import is_safe_topic_name, knowledge_folder, no_document
    from tasks.stages.briefed_topics import known_topic_names

    known = known_topic_names(settings, workspace)
    for name in requested or []:
        if not is_safe_topic_name(name):  # the true reason, not "unknown": no file could ever make it one
            raise UsageError(f"unsafe topic name {visible(name)!r}: a topic is ASCII letters, digits, '-' and '_', "
                             "starting with a letter or digit, at most 64 characters")
        if name not in known:
            raise UsageError(
                f"unknown topic {name!r}: no organized/knowledge/{name}.md in {workspace} and no topic of "
                f"that name is configured (known: {', '.join(known) or 'none'})"
            )
    folder = knowledge_folder(workspace)
    names = list(requested or settings.topics or folder.topics)
    rejected = dict(folder.rejected)
    for name in names:
        if name not in folder.topics:  # configured only: refused, not briefed against no baseline
            path = f"organized/knowledge/{name}.md"
            raise UsageError(f"{visible(path)}: not a topic: {rejected[path]}" if path in rejected else no_document(name))
    if not (requested or settings.topics):
        # An all-topics run names what it did not take for a topic (and the scan records it).
        for path, reason in folder.rejected:
            print(f"predigest: {visible(path)}: not a topic: {reason}", file=sys.stderr)
    if not names:
        raise UsageError(
            f"no topics to brief: {workspace} has no organized/knowledge/<topic>.md and PREDIGEST_TOPICS is empty"
        )
    return names


def check_storage(settings: Settings) -> str:
    """The storage URL, after opening it (nothing is written); UsageError when it cannot be used, or
    when it is a folder that publishes another workspace's briefings (`tasks.publish.workspace_store`;
    a bucket is asked at the first publish, which fails the same way, so no check needs the network)."""
    from tasks.publish.storage import LocalStore, store_for
    from tasks.publish.workspace_store import StoreTaken, check_owner

    try:
        url = settings.storage_root_url
        store = store_for(settings)
    except ValueError as exc:
        raise UsageError(f"PREDIGEST_STORAGE_URL: {exc}") from exc
    if settings.workspace is not None and isinstance(store, LocalStore):
        try:
            check_owner(store, settings.workspace)
        except StoreTaken as exc:
            raise UsageError(str(exc)) from exc
    return url


def one_line(exc: BaseException) -> str:
    """`exc`'s message on one line (pydantic and psycopg messages run over several)."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        parts = []
        for error in exc.errors():
            where = ".".join(str(part) for part in error["loc"])
            parts.append(f"PREDIGEST_{where.upper()}: {error['msg']}" if where else error["msg"])
        return "invalid settings: " + "; ".join(parts)
    from tasks.common.safe_text import visible

    text = str(exc).strip() or type(exc).__name__
    first, *rest = [line.strip() for line in text.splitlines() if line.strip()]
    return visible(f"{first} …" if rest else first)  # it may quote a file's name or text


# --- argument types (argparse reports their ArgumentTypeError as one usage line) ----------------


def parse_date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


def parse_datetime(value: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a datetime (YYYY-MM-DDTHH:MM[+08:00]): {value!r}") from exc


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type accepting integers from `low` to `high`."""

    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from exc
        if not low <= number <= high:
            raise argparse.ArgumentTypeError(f"must be {low}..{high}, got {number}")
        return number

    parse.__name__ = f"integer {low}..{high}"
    return parse


def check_date_range(start: dt.date, end: dt.date) -> None:
    if end < start:
        raise UsageError(f"--to {end} is before --from {start}")
