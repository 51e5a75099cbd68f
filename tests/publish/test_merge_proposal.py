"""Contract of the merge proposal beside a briefing (tasks.render.merge_plan, tasks.merge.proposal).

- The twin names the proposal's keys and merge time and says per increment where it goes (body
  section or References) and why; the markdown's section 五 and the page point at it.
- A briefing with nothing to merge names no proposal (null keys), says so in the markdown and on
  the page, and no proposal object is written.
- Published from the twin against a workspace document, the proposal is written once: publishing
  the same proposal again writes nothing, and its `#` lines name the document's sha256.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

from tasks.merge.proposal import make_proposal, proposal_base, publish_proposal
from tasks.merge.propose import sha256_text
from tasks.model.keys import proposal_keys
from tasks.publish.pages import render_page
from tasks.publish.storage import open_store
from tasks.render.labels import LABELS
from tasks.render.markdown import render_markdown
from tasks.render.twin import render_json
from tests.publish.briefing_factory import make_content

DAY = dt.date(2026, 10, 9)
MERGE_AT = dt.datetime(2026, 10, 10, 12, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
DOC = "version: v1 · updated: 2026-10-09 12:00 · citations: 10\n\n## §0 section\n\n- **Old**（arXiv:2609.00001）：x。[anchored 2026-10-01]\n"


def test_the_twin_markdown_and_page_name_the_proposal(tmp_path: Path) -> None:
    content = dataclasses.replace(make_content("inference", DAY, net_new=2), merge_at=MERGE_AT)
    twin = json.loads(render_json(content))
    diff_key, document_key = proposal_keys("inference", DAY)
    assert twin["knowledge_merge"] == {"merge_at": "2026-10-10T12:00:00+08:00", "diff": diff_key,
                                       "document": document_key, "increments": 4, "into_body": 3,
                                       "into_references": 1}
    into = {i["status"]: i["merge"]["into"] for i in twin["increments"]}
    assert into == {"net_new": "body", "adjacent": "references", "engineering": "body"}
    assert twin["increments"][0]["merge"]["section"].strip() == "§0 section" and twin["increments"][0]["merge"]["basis"] == "text"
    assert f"`{diff_key}`" in render_markdown(content)
    page = render_page(twin, "zh").decode()
    assert 'href="2026-10-09.knowledge.diff"' in page and 'href="2026-10-09.knowledge.md"' in page

    workspace = tmp_path / "ws"
    (workspace / "organized" / "knowledge").mkdir(parents=True)
    (workspace / "organized" / "knowledge" / "inference.md").write_text(DOC, encoding="utf-8")
    store = open_store((tmp_path / "published").as_uri())
    proposal = make_proposal(twin, workspace)
    assert proposal is not None and proposal.changed
    assert publish_proposal(store, "inference", DAY, proposal) is True
    assert publish_proposal(store, "inference", DAY, make_proposal(twin, workspace)) is False  # type: ignore[arg-type]
    stored = store.get(diff_key)
    assert stored is not None and proposal_base(stored.decode()) == sha256_text(DOC)
    assert store.get(document_key) == proposal.document.encode()
    assert "- **Paper 0**（arXiv:2610.01000）：point 0。[anchored 2026-10-10]" in proposal.document


def test_a_briefing_with_nothing_to_merge_says_so_and_has_no_proposal(tmp_path: Path) -> None:
    full = make_content("inference", DAY, net_new=0)
    content = dataclasses.replace(full, papers=[], increments=[], merge_at=MERGE_AT)
    twin = json.loads(render_json(content))
    assert twin["knowledge_merge"]["diff"] is None and twin["knowledge_merge"]["document"] is None
    assert twin["knowledge_merge"]["increments"] == 0
    assert LABELS["zh"]["sum_merge_none"] in render_markdown(content)
    assert LABELS["en"]["sum_merge_none"] in render_markdown(content, "en")
    assert LABELS["zh"]["merge_none"] in render_page(twin, "zh").decode()
    assert make_proposal(twin, tmp_path) is None  # nothing is read, nothing is published
