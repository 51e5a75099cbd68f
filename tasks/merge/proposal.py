"""The merge proposal next to a briefing: `briefings/<topic>/<date>.knowledge.diff` and `.knowledge.md`.

The proposal is read from the briefing's JSON twin (its increments' `merge` placements and
`knowledge_merge.merge_at`) and made against the knowledge document as it is in the workspace
now (`tasks.merge.propose.propose`). The `.diff` object is a few `#` lines saying what the
proposal does with each increment and which document it was made from (its sha256; `predigest
merge --apply` refuses a document that changed since), then the unified diff, which `patch` and
`git apply` read past those lines. `.knowledge.md` is the whole proposed document, byte for byte.
A briefing with nothing to merge has no proposal (its twin's keys are null). Each object is
written only when its bytes change.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tasks.common.safe_text import visible
from tasks.knowledge.document_file import read_knowledge
from tasks.knowledge.header import DocumentWords
from tasks.merge.propose import Proposal, propose
from tasks.model.keys import proposal_keys
from tasks.model.noon_merge import MERGED_STATUSES, MergeIncrement
from tasks.publish.objects import MARKDOWN_CONTENT_TYPE, put_if_changed
from tasks.publish.storage import ObjectStore

DIFF_CONTENT_TYPE = "text/x-diff; charset=utf-8"
_BASE = re.compile(r"^# document: .* \(sha256 ([0-9a-f]{64})\)$", re.M)


@dataclass(frozen=True)
class TwinMerge:
    """What the twin says about its noon merge."""

    merge_at: dt.datetime | None
    increments: tuple[MergeIncrement, ...]
    path: str  # the knowledge document, workspace-relative


def twin_merge(doc: Mapping[str, Any]) -> TwinMerge:
    """The increments to merge (in the briefing's rank order) and the merge time of a JSON twin."""
    merge = doc.get("knowledge_merge") or {}
    at = merge.get("merge_at")
    increments = []
    for inc in doc.get("increments") or []:
        placed = inc.get("merge")
        if not placed or inc.get("status") not in MERGED_STATUSES:
            continue
        increments.append(MergeIncrement(inc.get("arxiv_id"), str(inc.get("title") or ""), str(inc["status"]),
                                         str(placed.get("statement") or ""), placed.get("section"),
                                         str(placed.get("basis") or ""), tuple(placed.get("neighbours") or ())))
    path = str((doc.get("knowledge") or {}).get("path") or f"organized/knowledge/{doc.get('topic')}.md")
    return TwinMerge(dt.datetime.fromisoformat(at) if at else None, tuple(increments), path)


def make_proposal(doc: Mapping[str, Any], workspace: Path, only: Collection[str] = (),
                  skip: Collection[str] = (), words: DocumentWords | None = None) -> Proposal | None:
    """The proposal of a twin against the workspace's document now; None when the twin merges nothing.
    `words`: the run's `[knowledge]` words (`document_words`; None: the packaged ones).
    Raises OSError or ValueError when the document cannot be read as text it could be written back in."""
    merge = twin_merge(doc)
    if merge.merge_at is None or not merge.increments:
        return None
    text = read_document(workspace / merge.path)
    return propose(text, merge.increments, merge.merge_at, briefing_date=dt.date.fromisoformat(doc["date"]),
                   path=merge.path, only=only, skip=skip, words=words)


def read_document(path: Path) -> str:
    """The document's text, every character kept (a BOM stays as U+FEFF, line endings as they are),
    in whatever encoding ingest reads it in (`tasks.knowledge.document_file`)."""
    return read_knowledge(path).text


def proposal_text(topic: str, date: dt.date, proposal: Proposal, workspace: Path | None = None) -> str:
    """The `.diff` object: what the proposal does and what it was made from, then the unified diff."""
    at = proposal.merge_at.strftime("%Y-%m-%d %H:%M %z")
    out = [f"# predigest noon merge proposal · {topic} · briefing {date.isoformat()} · merge at {at}",
           f"# document: {proposal.path} (sha256 {proposal.base_sha256})"]
    for p in proposal.placements:
        where = f" → {p.section}" if p.section else ""
        out.append(f"# {p.action}: {p.key}{where} ({p.why})")
    out += [f"# note: {note}" for note in proposal.notes]
    if not proposal.changed:
        out.append("# nothing left to merge: the document already holds every increment")
    else:
        where = f" --workspace {shlex.quote(str(workspace))}" if workspace is not None else ""
        out.append(f"# apply: predigest merge{where} --topic {topic} --date {date.isoformat()} --apply")
    # Keys and notes carry titles from sources: controls are shown, never passed to a terminal.
    return "\n".join(visible(line) for line in out) + "\n" + proposal.diff


def proposal_base(diff_text: str) -> str | None:
    """The sha256 of the document a stored proposal was made from."""
    m = _BASE.search(diff_text)
    return m.group(1) if m else None


def publish_proposal(store: ObjectStore, topic: str, date: dt.date, proposal: Proposal) -> bool:
    """Write the proposal's diff and document where their bytes changed; return whether it wrote."""
    diff_key, document_key = proposal_keys(topic, date)
    wrote = put_if_changed(store, diff_key, proposal_text(topic, date, proposal).encode("utf-8"), DIFF_CONTENT_TYPE)
    return put_if_changed(store, document_key, proposal.document.encode("utf-8"), MARKDOWN_CONTENT_TYPE) or wrote
