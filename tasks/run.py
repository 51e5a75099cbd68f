"""Stage functions over ids and settings: what flows sequence and tests call directly.

Each function opens its own session from the settings' engine, so it can run in any thread or
worker; nothing here holds a Session across stages.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, select, text
from sqlalchemy.dialects.postgresql import insert

from db.engine import ensure_schema, get_engine, session_scope
from db.models import Briefing, Source
from predigest.settings import Settings
from predigest.topics import Topic, all_topic_names, discover_topics, load_topic_config, resolve_topic
from predigest.windows import Window, window_for
from tasks.briefing.assemble import build_content
from tasks.briefing.collect import collect_window
from tasks.briefing.render_json import render_json
from tasks.briefing.render_md import render_markdown
from tasks.ingest.scan import WorkspaceFile, scan_workspace
from tasks.ingest.store import IngestOutcome, get_workspace_id, ingest_file
from tasks.publish.publish import PublishedBriefing, publish_briefing
from tasks.publish.storage import open_store

_INDEX_LOCK = 0x70726564  # advisory lock id serialising index.json read-modify-write across workers


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
    """Workspace files whose current bytes are not stored yet (new or changed)."""
    files = scan_workspace(Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        known = set(session.execute(
            select(Source.path, Source.sha256).where(Source.workspace_id == ref.id, Source.superseded_at.is_(None))
        ).tuples())
    changed = []
    for wf in files:
        digest = hashlib.sha256(wf.problem.encode()).hexdigest() if wf.problem else _sha256_file(wf.absolute)
        if (wf.path, digest) not in known:
            changed.append(wf)
    return changed


def ingest_one(settings: Settings, ref: WorkspaceRef, wf: WorkspaceFile) -> IngestOutcome:
    """Ingest one file in its own transaction."""
    topics = all_topics(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        return ingest_file(session, ref.id, wf, settings.timezone, topics)


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


def render_briefing(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> tuple[str, str]:
    """Markdown and JSON of one briefing, read from Postgres as of the window's cutoff."""
    known = known_topic_names(settings, Path(ref.root))
    with session_scope(get_engine(settings)) as session:
        data = collect_window(session, ref.id, topic.name, window)
    content = build_content(data, topic, known)
    return render_markdown(content, settings.lang), render_json(content)


def assemble_and_publish(settings: Settings, ref: WorkspaceRef, topic: Topic, window: Window) -> BriefingResult:
    """Assemble one briefing and publish it; concurrent runs of the same (topic, date) are serialised."""
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
        markdown, json_text = render_briefing(settings, ref, topic, window)
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _INDEX_LOCK})
        published: PublishedBriefing = publish_briefing(store, topic.name, window.date, markdown, json_text)
        written = published.markdown_written or published.json_written
        if (row.content_hash != published.content_hash or row.window_start != window.start
                or row.cutoff != window.end or row.markdown_key != published.markdown_key):
            row.window_start, row.cutoff = window.start, window.end
            row.content_hash = published.content_hash
            row.markdown_key, row.json_key = published.markdown_key, published.json_key
            row.published_at = func.now()
    return BriefingResult(topic.name, window.date, store.url_for(published.markdown_key),
                          store.url_for(published.json_key), published.content_hash, written)
