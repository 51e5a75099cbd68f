"""Stage functions over ids and settings: what flows sequence and tests call directly.

The stages live in `tasks.stages`, one module each: `workspace` (register, find what changed,
ingest), `topics` (which topics, their windows and rules), `verifications` (derive a topic's
verifications through a date; the staleness check), `briefings` (render and publish one
briefing), `refresh` (which closed briefings a newly stored file changes). This module names
them in one place for flows, the CLI and tests.
"""

from __future__ import annotations

from tasks.stages.briefings import (
    BriefingResult,
    assemble_and_publish,
    brief,
    collected_content,
    failed_briefing,
    refresh_sites,
    render_briefing,
)
from tasks.stages.refresh import briefings_to_refresh, stored_times
from tasks.stages.topics import (
    all_topics,
    density_rule_for,
    known_topic_names,
    scheduled_window,
    topics_for,
    window_of,
)
from tasks.stages.verifications import derive_verifications, report_staleness
from tasks.stages.workspace import (
    ANALYZE_AFTER_FILES,
    INGEST_BATCH_FILES,
    INGESTED_TABLES,
    WorkspaceRef,
    find_changed_files,
    ingest_batch,
    ingest_one,
    register_workspace,
)

__all__ = [
    "ANALYZE_AFTER_FILES",
    "INGESTED_TABLES",
    "INGEST_BATCH_FILES",
    "BriefingResult",
    "WorkspaceRef",
    "all_topics",
    "assemble_and_publish",
    "brief",
    "briefings_to_refresh",
    "collected_content",
    "failed_briefing",
    "density_rule_for",
    "derive_verifications",
    "find_changed_files",
    "ingest_batch",
    "ingest_one",
    "known_topic_names",
    "report_staleness",
    "refresh_sites",
    "register_workspace",
    "render_briefing",
    "scheduled_window",
    "stored_times",
    "topics_for",
    "window_of",
]
