"""Contract: `predigest run` prints a topic whose briefing failed as failed, with its error, next to
the topics that published; it exits non-zero only when every topic failed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from predigest import cli
from tasks.run import BriefingResult


@pytest.mark.xfail(reason="issue 16's early validation rejects this test's workspace (exit 2) since the merge; open, see the session note", strict=False)
def test_a_failed_topic_is_printed_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import flows.daily

    day = dt.date(2026, 10, 9)
    results = [BriefingResult("agents", day, "", "", "", False, "ValueError: bad anchor"),
               BriefingResult("inference", day, "file:///m.md", "file:///j.json", "h", True)]
    monkeypatch.setattr(flows.daily, "daily_briefing", lambda **_: results)
    monkeypatch.setenv("PREDIGEST_HOME", str(tmp_path / "home"))
    assert cli.main(["run", "--workspace", str(tmp_path), "--date", "2026-10-09"]) == 0
    out = capsys.readouterr().out
    assert "'agents' 2026-10-09 failed: ValueError: bad anchor" in out
    assert "inference 2026-10-09 published" in out
    monkeypatch.setattr(flows.daily, "daily_briefing", lambda **_: results[:1])
    assert cli.main(["run", "--workspace", str(tmp_path), "--date", "2026-10-09"]) == 1
