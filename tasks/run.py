"""Stage functions over ids and settings: what flows sequence and tests call directly.

Each function opens its own session from the settings' engine, so it can run in any thread or
worker; nothing here holds a Session across stages.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import multiprocessing
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from db.engine import ensure_schema, get_engine, refresh_statistics, session_scope
from db.models import Briefing, Source
from predigest.settings import Settings
from predigest.topics import (
    Topic,
    all_topic_names,
    discover_topics,
    judgment_for,
    load_topic_config,
    resolve_topic,
)
from predigest.windows import ScheduleError, Window, window_for
from tasks.briefing.assemble import build_content
from tasks.briefing.collect import add_lookups, collect_window
from tasks.briefing.judge import judge_papers
from tasks.briefing.render_json import render_json
from tasks.briefing.render_md import render_markdown
from tasks.ingest.scan import WorkspaceFile, scan_workspace
from tasks.ingest.store import (
    BuiltFile,
    IngestOutcome,
    RowBuilder,
    build_in_worker,
    get_workspace_id,
    ingest_file,
    ingest_files,
    init_worker,
    plan_built,
    write_planned,
)
from tasks.judge.density import DensityRule
from tasks.model.briefing import Paper
from tasks.model.window import WindowData
from tasks.publish.publish import (
    JSON_CONTENT_TYPE,
    MARKDOWN_CONTENT_TYPE,
    PublishedBriefing,
    publish_briefing,
)
from tasks.publish.storage import open_store
from tasks.verify.observe import observe_window
from tasks.verify.store import load_tracked, lookup_subjects, record, refresh_status

_INDEX_LOCK = 0x70726564  # advisory lock id serialising index.json read-modify-write across workers
_VERIFY_LOCK = 0x76657269  # advisory lock class serialising verification recording per topic
# The daily flow also (re-)records this many earlier windows, so a first run or a skipped evening
# still ages what those windows raised; recording is idempotent, so repeats add nothing.
VERIFY_CATCH_UP_DAYS = 7


@dataclass(frozen=True)
class WorkspaceRef:
    id: int
    root: str


@dataclass(frozen=True)
class BriefingResult:
    topic: str
    date: dt.date
    markdown_url: str
    json_url: str
    content_hash: str
    written: bool


def register_workspace(settings: Settings, workspace: Path) -> WorkspaceRef:
    """Bring the schema up to date and return the workspace row for this root."""
    if not workspace.is_dir():
        raise FileNotFoundError(f"workspace not found: {workspace}")
    engine = ensure_schema(settings)
    root = str(workspace.resolve())
    with session_scope(engine) as session:
        return WorkspaceRef(get_workspace_id(session, root), root)


# Files per transaction in `ingest_batch`: enough to amortise the bulk writes, small enough to hold.
INGEST_BATCH_FILES = 500


def _sha256_file(path: Path) -> str | None:
    try:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except OSError:
        return None


def find_changed_files(settings: Settings, ref: WorkspaceRef) -> list[WorkspaceFile]:
    """Workspace files whose current bytes are not stored yet (new or changed).

    Only paths that have a current stored version are read and hashed.
    """
    files = scan_workspace(Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        known = {(path, digest) for path, digest in session.execute(
            select(Source.path, Source.sha256).where(Source.workspace_id == ref.id, Source.superseded_at.is_(None))
        )}
    known_paths = {path for path, _ in known}
    changed = []
    for wf in files:
        if wf.path not in known_paths:
            changed.append(wf)  # no stored version of this path: new, whatever its bytes
            continue
        digest = hashlib.sha256(wf.problem.encode()).hexdigest() if wf.problem else _sha256_file(wf.absolute)
        if (wf.path, digest) not in known:
            changed.append(wf)
    return changed


def ingest_one(settings: Settings, ref: WorkspaceRef, wf: WorkspaceFile) -> IngestOutcome:
    """Ingest one file in its own transaction."""
    topics = all_topics(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        return ingest_file(session, ref.id, wf, settings.timezone, topics)


def ingest_batch(
    settings: Settings, ref: WorkspaceRef, files: Sequence[WorkspaceFile], batch_size: int = INGEST_BATCH_FILES,
    workers: int = 1,
) -> list[IngestOutcome]:
    """Ingest files `batch_size` at a time, one transaction and one bulk write per batch.

    The rows, and the order ids are taken in, are those `ingest_one` writes file by file. With
    `workers` > 1, that many worker processes parse the next batches while this process writes the
    current one (worth it from a few thousand files: each worker takes a second or two to start).
    A batch the database refuses (a value it rejects in one file) is rolled back and redone one
    file per transaction, so the other files are stored and the bad file fails alone, as under
    `ingest_one`; its error is raised once every file has been tried.
    """
    topics = all_topics(settings, Path(ref.root))
    engine = get_engine(settings)
    batches = [list(files[start : start + batch_size]) for start in range(0, len(files), batch_size)]
    outcomes: list[IngestOutcome] = []
    failures: list[BaseException] = []

    def one_by_one(batch: list[WorkspaceFile]) -> None:
        for wf in batch:
            try:
                with session_scope(engine) as session:
                    outcomes.append(ingest_file(session, ref.id, wf, settings.timezone, topics))
            except SQLAlchemyError as exc:
                failures.append(exc)

    if workers <= 1 or len(batches) < 2 or len({wf.path for wf in files}) != len(files):
        for batch in batches:
            try:
                with session_scope(engine) as session:
                    outcomes += ingest_files(session, ref.id, batch, settings.timezone, topics)
            except SQLAlchemyError:
                one_by_one(batch)
    else:
        _ingest_pipelined(settings, ref, batches, workers, topics, outcomes, one_by_one)
    if sum(o.status == "new" for o in outcomes) >= ANALYZE_AFTER_FILES:
        refresh_statistics(engine, INGESTED_TABLES)
    if failures:
        raise failures[0]
    return outcomes


# New files in one ingest after which the planner's statistics are refreshed at once: until
# autovacuum gets to it (and on servers where it is off) a freshly filled table has none, and the
# planner reads a window's items by scanning every source's.
ANALYZE_AFTER_FILES = 500
INGESTED_TABLES = ("sources", "items", "mentions", "paper_cards", "queue_entries", "knowledge_snapshots", "anchors")


def _ingest_pipelined(
    settings: Settings, ref: WorkspaceRef, batches: list[list[WorkspaceFile]], workers: int, topics: list[Topic],
    outcomes: list[IngestOutcome], one_by_one: Callable[[list[WorkspaceFile]], None],
) -> None:
    """Read, hash and parse each batch in the worker processes; look up and write it here, in order.

    The workers also turn rows into COPY text, so this process (which shares the machine with
    PostgreSQL) only looks up stored versions, takes ids and streams bytes.
    """
    engine = get_engine(settings)
    builder = RowBuilder(ref.id, settings.timezone, topics)
    context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
    with ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker,
                             initargs=(ref.id, settings.timezone, topics)) as pool:

        def submit(batch: list[WorkspaceFile]) -> list[Future[list[BuiltFile]]]:
            step = max(1, -(-len(batch) // (4 * workers)))  # a few chunks per worker per batch
            return [pool.submit(build_in_worker, batch[i : i + step]) for i in range(0, len(batch), step)]

        ahead = [submit(batches[0])]
        for k, batch in enumerate(batches):
            if k + 1 < len(batches):
                ahead.append(submit(batches[k + 1]))  # parsed while this batch is written
            built = [b for future in ahead.pop(0) for b in future.result()]
            try:
                with session_scope(engine) as session:
                    planned, rows = plan_built(session, ref.id, batch, built)
                    outcomes.extend(write_planned(session, ref.id, planned, rows, builder))
            except SQLAlchemyError:
                one_by_one(batch)


def topics_for(settings: Settings, workspace: Path, requested: list[str] | None) -> list[Topic]:
    """The topics to brief: as requested, else configured, else every knowledge document found."""
    config = load_topic_config(settings, workspace)
    names = list(requested or settings.topics or discover_topics(workspace))
    return [resolve_topic(name, settings, workspace, config) for name in names]


def all_topics(settings: Settings, workspace: Path) -> list[Topic]:
    """Every configured or discovered topic, for classifying entries at ingest."""
    config = load_topic_config(settings, workspace)
    return [resolve_topic(name, settings, workspace, config) for name in known_topic_names(settings, workspace)]


def known_topic_names(settings: Settings, workspace: Path) -> list[str]:
    config = load_topic_config(settings, workspace)
    return sorted(set(all_topic_names(config)) | set(discover_topics(workspace)) | set(settings.topics))


def window_of(topic: Topic, day: dt.date, since: dt.datetime | None = None) -> Window:
    return window_for(day, topic.schedule, topic.timezone, since)


def density_rule_for(settings: Settings, workspace: Path, topic: str) -> DensityRule:
    """The topic's density thresholds: `density` under the topic, else `[defaults.density]`, else the defaults."""
    config = load_topic_config(settings, workspace)
    entry = config.get("topics", {}).get(topic, {}).get("density") or config.get("defaults", {}).get("density")
    return DensityRule.from_mapping(entry, judgment_for(settings, workspace, config).density)


def render_briefing(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> tuple[str, str]:
    """Markdown and JSON of one briefing, read from Postgres as of the window's cutoff."""
    with session_scope(get_engine(settings)) as session:
        data = collect_window(session, ref.id, topic.name, window)
    return render_collected(settings, ref, topic, data, known_topic_names(settings, Path(ref.root)),
                            density_rule_for(settings, Path(ref.root), topic.name))


def render_collected(
    settings: Settings, ref: WorkspaceRef, topic: Topic, data: WindowData, known: list[str], rule: DensityRule,
    judged: Sequence[Paper] | None = None,
) -> tuple[str, str]:
    """`render_briefing` from a window collected earlier (nothing `collect_window` reads may have
    changed since); the verifications are read now. `data` gains the lookups of tracked subjects.
    `judged`: the window's `judge_window` papers, if the caller has them."""
    with session_scope(get_engine(settings)) as session:
        tracked = load_tracked(session, ref.id, topic.name, data.window.date)
        add_lookups(session, data, lookup_subjects(tracked))
    content = build_content(data, topic, known, tracked, settings.stale_after_days, rule, judged)
    return render_markdown(content, settings.lang), render_json(content)


def record_verifications(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> dict[str, Any]:
    """Store what one window raises and resolves; idempotent (re-recording a date adds no rows)."""
    known = known_topic_names(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        _lock_verifications(session, topic)
        data = collect_window(session, ref.id, topic.name, window)
        return _record_window(session, ref, topic, data, known)


def record_collected(
    settings: Settings, ref: WorkspaceRef, topic: Topic, data: WindowData, known: list[str],
    judged: Sequence[Paper] | None = None,
) -> dict[str, Any]:
    """`record_verifications` from a window collected earlier; `data` is left as collected (a copy
    gains the lookups), so the same window can then be rendered with `render_collected`. `judged`:
    the window's `judge_window` papers, if the caller has them."""
    with session_scope(get_engine(settings)) as session:
        _lock_verifications(session, topic)
        return _record_window(session, ref, topic, _copy_window(data), known, judged)


def _lock_verifications(session: Session, topic: Topic) -> None:
    # One writer per (topic) at a time: keys of named subjects depend on what is already stored.
    session.execute(text("SELECT pg_advisory_xact_lock(:k, hashtext(:t))"), {"k": _VERIFY_LOCK, "t": topic.name})


def _record_window(
    session: Session, ref: WorkspaceRef, topic: Topic, data: WindowData, known: list[str],
    judged: Sequence[Paper] | None = None,
) -> dict[str, Any]:
    tracked = load_tracked(session, ref.id, topic.name, data.window.date)
    add_lookups(session, data, lookup_subjects(tracked))
    papers = judge_papers(data, topic, known, judged)
    observations = observe_window(data, papers, topic, known, tracked)
    counts = record(session, ref.id, topic.name, observations)
    return {"topic": topic.name, "date": data.window.date.isoformat(), **counts}


def _copy_window(data: WindowData) -> WindowData:
    """A copy whose lists and dicts are new (their items are shared: nothing downstream mutates them;
    `add_lookups` only adds to `lookups`), so recording leaves the collected window as it was."""
    copied = {f.name: getattr(data, f.name) for f in fields(data) if f.init}
    for name, value in copied.items():
        if isinstance(value, list):
            copied[name] = list(value)
        elif isinstance(value, dict):
            copied[name] = dict(value)
    return WindowData(**copied)


def record_recent_verifications(
    settings: Settings, ref: WorkspaceRef, topic: Topic, day: dt.date, days: int = 0, since: dt.datetime | None = None
) -> list[dict[str, Any]]:
    """Record the windows of the `days` dates before `day` (oldest first), then `day`'s own window."""
    out = []
    for back in range(days, 0, -1):
        try:
            earlier = window_of(topic, day - dt.timedelta(days=back))
        except ScheduleError:
            continue  # no briefing scheduled that date
        out.append(record_verifications(settings, ref, topic, earlier))
    out.append(record_verifications(settings, ref, topic, window_of(topic, day, since)))
    return out


def mark_stale(settings: Settings, ref: WorkspaceRef, topic: Topic | str, day: dt.date) -> dict[str, Any]:
    """Set each verification's `status` column to its state as of `day` (pending, stale past
    Settings.stale_after_days, or resolved); returns counts and the keys that just turned stale."""
    name = topic if isinstance(topic, str) else topic.name
    with session_scope(get_engine(settings)) as session:
        return refresh_status(session, ref.id, name, day, settings.stale_after_days)


def assemble_and_publish(
    settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window, force: bool = False,
    render: Callable[[], tuple[str, str]] | None = None,
) -> BriefingResult:
    """Assemble one briefing and publish it; concurrent runs of the same (topic, date) are serialised.

    `force` rewrites the objects and bumps `published_at` even when nothing changed (the row is
    updated in place, never duplicated). `render` (default: `render_briefing` of the window) is
    called while the row lock is held.
    """
    engine = get_engine(settings)
    store = open_store(settings.storage_root_url, s3_endpoint_url=settings.s3_endpoint_url)
    with session_scope(engine) as session:
        session.execute(
            insert(Briefing)
            .values(workspace_id=ref.id, topic=topic.name, date=window.date, window_start=window.start, cutoff=window.end)
            .on_conflict_do_nothing(constraint="uq_briefings_topic_date")
        )
        session.commit()
        # Row lock: a second worker on the same (topic, date) waits here until this one commits.
        row = session.execute(
            select(Briefing).where(
                Briefing.workspace_id == ref.id, Briefing.topic == topic.name, Briefing.date == window.date
            ).with_for_update()
        ).scalar_one()
        markdown, json_text = render() if render is not None else render_briefing(settings, ref, topic, window)
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _INDEX_LOCK})
        published: PublishedBriefing = publish_briefing(store, topic.name, window.date, markdown, json_text)
        written = published.markdown_written or published.json_written
        if force and not written:
            store.put(published.markdown_key, markdown.encode("utf-8"), MARKDOWN_CONTENT_TYPE)
            store.put(published.json_key, json_text.encode("utf-8"), JSON_CONTENT_TYPE)
            written = True
        if (force or row.content_hash != published.content_hash or row.window_start != window.start
                or row.cutoff != window.end or row.markdown_key != published.markdown_key):
            row.window_start, row.cutoff = window.start, window.end
            row.content_hash = published.content_hash
            row.markdown_key, row.json_key = published.markdown_key, published.json_key
            row.published_at = func.now()
    return BriefingResult(topic.name, window.date, store.url_for(published.markdown_key),
                          store.url_for(published.json_key), published.content_hash, written)
