"""Contract (issue 49): `predigest score` takes readers' verdicts as partial labels and says, per
category, how often readers overruled the tool: each verdict against the briefing it answers, as
of that briefing's cutoff (so the tool's own answer, not one the verdict already changed). A
verdict on an item the briefing does not hold is named apart. Workspace: tests/generate/replay.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import Engine

from predigest.cli import main
from tasks.config.settings import Settings
from tasks.inbox.feedback_file import feedback_path, format_line
from tasks.model.keys import briefing_keys
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tasks.stages.feedback import record_feedback
from tests.generate.files import local
from tests.generate.replay import PAPER, STALE_NAME, TOPIC, day_of, write_items_days
from tests.helpers import ingest_all, point_flows_at, published_store

D1, D2 = day_of(1), day_of(2)


def _row(out: str, category: str) -> tuple[int, int, int]:
    found = re.search(rf"^  {category}\s+(\d+)\s+(\d+)\s+(\d+)\s", out, re.M)
    assert found, out
    verdicts, overruled, items = found.groups()
    return int(verdicts), int(overruled), int(items)


def test_score_counts_how_often_readers_overruled_each_category(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = write_items_days(tmp_path / "ws")
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [TOPIC])
    assert brief(settings, ref, topic, D1).written
    twin = json.loads(published_store(settings).get(briefing_keys(TOPIC, D1, settings.lang)[1]) or b"{}")
    (stale,) = [v for v in twin["verifications"] if v["subject"] == STALE_NAME]
    (kestrel,) = [i for i in twin["increments"] if "Kestrel" in i["title"]]
    assert any(i["arxiv_id"] == PAPER for i in twin["increments"])
    record_feedback(settings, root, TOPIC, D1, PAPER, "not-ours", "jay", now=local(D2, 9, 0))  # overrules
    record_feedback(settings, root, TOPIC, D1, stale["item_key"], "settled", "jay", "fixed", now=local(D2, 9, 5))
    record_feedback(settings, root, TOPIC, D1, kestrel["item_key"], "not-new", "jay", now=local(D2, 9, 10))
    path = root / feedback_path(TOPIC)
    unknown = format_line(D1, "p-00000000", "not-a-contradiction", "jay", local(D2, 9, 15))
    path.write_text(path.read_text(encoding="utf-8") + unknown + "\n", encoding="utf-8")
    point_flows_at(monkeypatch, settings)
    capsys.readouterr()
    assert main(["score", "--workspace", str(root), "--feedback"]) == 0
    out = capsys.readouterr().out
    papers = {p["arxiv_id"] for p in [*twin["increments"], *twin["citations"], *twin["off_topic"]] if p.get("arxiv_id")}
    assert _row(out, "membership") == (1, 1, len(papers))
    assert _row(out, "pending") == (1, 1, len(twin["verifications"]) + len(twin["earlier_verifications"]))
    assert _row(out, "engineering") == (1, 1, sum(i["status"] == "engineering" for i in twin["increments"]))
    assert _row(out, "conflict")[:2] == (0, 0)
    assert f"not in the briefing it answers: {TOPIC}/{D1.isoformat()} line 6: p-00000000" in out
    # Without feedback, --feedback is refused in one line; the gate's own run is unchanged by it.
    path.unlink()
    capsys.readouterr()
    assert main(["score", "--workspace", str(root), "--feedback"]) == 2
    assert "no reader feedback to score" in capsys.readouterr().err
