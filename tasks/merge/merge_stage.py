"""The noon update over settings: show a briefing's merge proposal, or apply it to the workspace.

`merge_knowledge` reads the briefing's published JSON twin, makes its proposal against the
knowledge document as it is now (`tasks.merge.proposal`), and
- without `apply`: publishes that proposal (unless `only`/`skip` choose part of it) and returns it;
- with `apply`: writes the proposed document atomically (a temp file beside it, then rename), in
  the encoding it was read in, only if the document is still the one the stored proposal was made
  from (its sha256); else it refuses (`stale`, exit code 2) and leaves the file untouched, as it
  does when that encoding cannot hold the merged text (`refused`, exit code 2). A proposal that changes nothing
  (everything already merged) is a no-op, so applying twice equals applying once.
The CLI (`predigest merge`) and the flow `knowledge-merge` both call it.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from tasks.config.settings import Lang, Settings
from tasks.config.topics import judgment_for
from tasks.knowledge.document_file import read_knowledge, write_knowledge
from tasks.knowledge.header import document_words
from tasks.merge.proposal import (
    make_proposal,
    proposal_base,
    proposal_text,
    publish_proposal,
)
from tasks.merge.propose import Proposal, sha256_text
from tasks.model.keys import briefing_keys, proposal_keys
from tasks.publish.workspace_store import workspace_store

EXIT_CODES = {"proposed": 0, "applied": 0, "nothing": 0, "missing": 1, "stale": 2, "refused": 2}


@dataclass(frozen=True)
class MergeOutcome:
    status: str  # proposed, applied, nothing, missing, stale, refused
    message: str  # one line
    text: str = ""  # the proposal as published: `#` lines, then the unified diff
    proposal: Proposal | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def as_dict(self) -> dict[str, str]:
        return {"status": self.status, "message": self.message}


def merge_knowledge(settings: Settings, workspace: Path, topic: str, day: dt.date, only: Collection[str] = (),
                    skip: Collection[str] = (), apply: bool = False) -> MergeOutcome:
    """Show (and publish) or apply the merge proposal of `topic`'s briefing of `day`; see the module docstring."""
    store = workspace_store(settings, workspace)
    # The run's language first, then any other a briefing of that date was published in.
    langs = [settings.lang, *(lang for lang in get_args(Lang) if lang != settings.lang)]
    raw = next((found for lang in langs if (found := store.get(briefing_keys(topic, day, lang)[1])) is not None), None)
    if raw is None:
        return MergeOutcome("missing", f"no published briefing of {topic} {day.isoformat()}; run "
                                       f"`predigest run --date {day.isoformat()}` first")
    twin = json.loads(raw.decode("utf-8"))
    try:
        proposal = make_proposal(twin, workspace, only, skip, document_words(judgment_for(settings, workspace)))
    except (OSError, ValueError) as exc:  # ValueError: not text the merge could write back unchanged
        return MergeOutcome("missing", f"cannot read the knowledge document of {topic}: {exc}")
    if proposal is None:
        return MergeOutcome("nothing", f"the briefing of {topic} {day.isoformat()} has nothing to merge; no proposal")
    text = proposal_text(topic, day, proposal, workspace)
    if not proposal.changed:
        return MergeOutcome("nothing", f"nothing to merge into {proposal.path}: every increment is already merged",
                            text, proposal)
    if not apply:
        if not only and not skip:
            publish_proposal(store, topic, day, proposal)
        return MergeOutcome("proposed", f"proposal for {proposal.path}: {_counts(proposal)}", text, proposal)
    stored = store.get(proposal_keys(topic, day)[0])
    base = proposal_base(stored.decode("utf-8", "replace")) if stored is not None else None
    if base is not None and base != proposal.base_sha256:
        return MergeOutcome("stale", f"{proposal.path} changed after the proposal was made (sha256 {base[:12]} → "
                                     f"{proposal.base_sha256[:12]}); run `predigest merge` again to review a new one",
                            text, proposal)
    target = workspace / proposal.path
    current = read_knowledge(target)
    if sha256_text(current.text) != proposal.base_sha256:  # edited while we were proposing
        return MergeOutcome("stale", f"{proposal.path} changed while the proposal was made; run `predigest merge` "
                                     "again", text, proposal)
    try:  # in the encoding it was read in: its other bytes stay as they are
        write_knowledge(target, proposal.document, current.encoding)
    except ValueError as exc:
        return MergeOutcome("refused", f"{proposal.path} is left as it is: the merge cannot be written in its "
                                       f"encoding, {exc}; edit the document by hand or convert it to UTF-8",
                            text, proposal)
    return MergeOutcome("applied", f"applied to {proposal.path}: {_counts(proposal)}", text, proposal)


_COUNTED = {"entry": ("entry", "entries"), "reference": ("reference", "references"),
            "already": ("already merged", "already merged"), "skipped": ("skipped", "skipped")}


def _counts(proposal: Proposal) -> str:
    """"2 entries, 1 reference, 1 already merged": what the proposal does, counted."""
    actions = [p.action for p in proposal.placements]
    return ", ".join(f"{n} {_COUNTED[a][n != 1]}" for a in _COUNTED if (n := actions.count(a)))
