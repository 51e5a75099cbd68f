"""Contract of the noon merge on a copy of the sample workspace (real PostgreSQL, local storage).

- Briefing 2026-10-09 publishes its proposal next to it (`.knowledge.diff`, `.knowledge.md`), and
  the twin names it; applying it (merge date 2026-10-10 12:00) anchors every NET-new id on
  2026-10-10 and cites the adjacent ones, and a second apply is a no-op ("nothing to merge").
- The round trip: a note of 2026-10-10 mentions the 10-09 NET-new papers again; briefing
  2026-10-10 calls them already anchored (2026-10-10), not NET-new, and names the document's new
  version; a re-run of 2026-10-09 writes nothing and its bytes are the first run's.
- The flow `knowledge-merge` only proposes unless `auto_apply` is set, then applies what it is given.
- A stale proposal (the document edited after it was made) is refused by `predigest merge
  --apply` with one line on stderr and exit code 2, the file untouched; `predigest merge` without
  `--apply` shows the proposal against the document as it is now.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.engine import Engine

from predigest.cli import main
from tasks.config.settings import Settings
from tasks.knowledge.parse import anchor_status_as_of, parse_knowledge
from tasks.merge.merge_stage import merge_knowledge
from tasks.model.keys import briefing_keys, proposal_keys
from tasks.publish.storage import open_store
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import BriefingResult, brief
from tests.helpers import ingest_all, point_flows_at, sample_copy

D9, D10 = dt.date(2026, 10, 9), dt.date(2026, 10, 10)
DOC = Path("organized/knowledge/inference.md")


def _published(settings: Settings, day: dt.date) -> tuple[bytes, bytes]:
    store = open_store(settings.storage_root_url)
    md, js = (store.get(key) for key in briefing_keys("inference", day))
    assert md is not None and js is not None
    return md, js


def _brief(settings: Settings, workspace: Path, day: dt.date) -> BriefingResult:
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    return brief(settings, ref, topic, day)


def test_apply_then_brief_the_next_day_sees_the_papers_anchored(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    workspace, _ = sample_copy(tmp_path)
    _brief(settings, workspace, D9)
    first_md, first_json = _published(settings, D9)
    twin = json.loads(first_json)
    net_new = sorted(i["arxiv_id"] for i in twin["increments"] if i["status"] == "net_new")
    adjacent = sorted(i["arxiv_id"] for i in twin["increments"] if i["status"] == "adjacent")
    assert net_new == ["2609.23130", "2609.39334", "2610.07219"] and len(adjacent) == 2
    diff_key, document_key = proposal_keys("inference", D9)
    assert (twin["knowledge_merge"]["diff"], twin["knowledge_merge"]["document"]) == (diff_key, document_key)
    assert twin["knowledge_merge"]["merge_at"] == "2026-10-10T12:00:00+08:00"
    assert diff_key.encode() in first_md
    store = open_store(settings.storage_root_url)
    proposed = store.get(document_key)
    assert proposed is not None

    outcome = merge_knowledge(settings, workspace, "inference", D9, apply=True)
    assert outcome.status == "applied", outcome.message
    assert (workspace / DOC).read_bytes() == proposed
    doc = parse_knowledge((workspace / DOC).read_text(encoding="utf-8"), ZoneInfo("Asia/Shanghai"))
    assert doc.version == "v311" and doc.changelog[0].summary.startswith("合入 Oct 9 E1：")
    status = anchor_status_as_of(doc.anchors, D10)
    assert {i: status[i].anchored_on for i in net_new} == dict.fromkeys(net_new, D10)
    assert {status[i].cited_on for i in adjacent} == {D10}
    again = merge_knowledge(settings, workspace, "inference", D9, apply=True)
    assert again.status == "nothing" and (workspace / DOC).read_bytes() == proposed

    note = workspace / "inbox" / "jay" / "2026-10-10T1500-jay-serving-followup.md"
    note.write_text("# inference serving 跟进\n\n" + "".join(
        f"- arXiv:{i}：推理服务 serving 调度再读一遍，vLLM / SGLang 场景下的吞吐与延迟。\n" for i in net_new),
        encoding="utf-8")
    _brief(settings, workspace, D10)
    later = json.loads(_published(settings, D10)[1])
    cited = {c["arxiv_id"]: c for c in later["citations"]}
    for arxiv_id in net_new:
        assert cited[arxiv_id]["status"] == "already_anchored", cited.get(arxiv_id)
        assert cited[arxiv_id]["anchored_on"] == "2026-10-10"
    assert not {i["arxiv_id"] for i in later["increments"]} & set(net_new)
    assert later["knowledge"]["version"] == "v311"

    rerun = _brief(settings, workspace, D9)
    assert not rerun.written
    assert _published(settings, D9) == (first_md, first_json)


def test_a_stale_proposal_is_refused_with_one_line_and_exit_code_2(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    workspace, _ = sample_copy(tmp_path)
    _brief(settings, workspace, D9)
    point_flows_at(monkeypatch, settings)
    edited = (workspace / DOC).read_bytes() + "- **Hand edit**：after the proposal. [anchored 2026-10-10]\n".encode()
    (workspace / DOC).write_bytes(edited)
    capsys.readouterr()
    args = ["merge", "--workspace", str(workspace), "--topic", "inference", "--date", "2026-10-09"]
    assert main([*args, "--apply"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "changed after the proposal was made" in err
    assert (workspace / DOC).read_bytes() == edited
    # Shown again, the proposal is made against the document as it is now, and can then be applied.
    assert main(args) == 0
    out, _ = capsys.readouterr()
    assert "+- **SpecScale" in out and "# document: organized/knowledge/inference.md" in out
    assert main([*args, "--apply", "--skip", "2610.07219"]) == 0
    applied = (workspace / DOC).read_bytes()
    assert applied.startswith(edited[:40]) and b"- **Hand edit**" in applied and b"arXiv:2610.07219" not in applied


def test_the_knowledge_merge_flow_proposes_and_applies_only_when_asked(
        prefect_harness: None, clean_db: Engine, settings: Settings, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from flows.merge import knowledge_merge

    workspace, _ = sample_copy(tmp_path)
    _brief(settings, workspace, D9)
    point_flows_at(monkeypatch, settings)
    before = (workspace / DOC).read_bytes()
    proposed = asyncio.run(knowledge_merge(date=D9, topics=["inference"], workspace=str(workspace)))
    assert [r["status"] for r in proposed] == ["proposed"] and (workspace / DOC).read_bytes() == before
    applied = asyncio.run(knowledge_merge(date=D9, topics=["inference"], workspace=str(workspace),
                                          only=["2609.39334"], auto_apply=True))
    assert [r["status"] for r in applied] == ["applied"]
    assert b"arXiv:2609.39334" in (workspace / DOC).read_bytes() and b"arXiv:2610.07219" not in (workspace / DOC).read_bytes()
