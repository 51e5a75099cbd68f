"""Contract of what `predigest merge` says (predigest/merge_cli.py, tasks/merge/merge_stage.py).

- It finds the briefing whichever language it was published in (a run with `--lang en` only).
- An unknown topic gets the message `run` gives ("unknown topic 'nosuch'"), exit code 2.
- The proposal's apply hint names the workspace it was made for, and works as written.
- Counts read as English: "3 entries, 2 references", "1 entry", "1 already merged".
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from predigest.cli import main
from tasks.config.settings import Settings
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import brief
from tests.helpers import ingest_all, point_flows_at, sample_copy

D9 = dt.date(2026, 10, 9)


def _brief(settings: Settings, workspace: Path) -> None:
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    brief(settings, ref, topic, D9)


def test_merge_finds_an_english_briefing_and_its_hint_works_as_written(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    workspace, _ = sample_copy(tmp_path)
    _brief(settings.model_copy(update={"lang": "en"}), workspace)  # only an English briefing is published
    point_flows_at(monkeypatch, settings)
    capsys.readouterr()
    assert main(["merge", "--workspace", str(workspace), "--topic", "inference", "--date", D9.isoformat()]) == 0
    out, _ = capsys.readouterr()
    assert re.search(r"predigest: proposal for organized/knowledge/inference\.md: 3 entries, 2 references$", out, re.M)
    (hint,) = [line for line in out.splitlines() if line.startswith("# apply: ")]
    assert f"--workspace {shlex.quote(str(workspace))}" in hint
    argv = shlex.split(hint.removeprefix("# apply: "))
    assert argv[0] == "predigest" and main(argv[1:]) == 0  # the hint, run as written, applies
    out, _ = capsys.readouterr()
    assert "predigest: applied to organized/knowledge/inference.md: 3 entries, 2 references" in out


def test_an_unknown_topic_gets_the_message_run_gives(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    workspace, _ = sample_copy(tmp_path)
    point_flows_at(monkeypatch, settings)
    capsys.readouterr()
    assert main(["merge", "--workspace", str(workspace), "--topic", "nosuch", "--date", D9.isoformat()]) == 2
    merge_err = capsys.readouterr().err
    assert main(["run", "--workspace", str(workspace), "--topic", "nosuch", "--date", D9.isoformat()]) == 2
    run_err = capsys.readouterr().err
    assert "unknown topic 'nosuch'" in merge_err and merge_err.strip().splitlines()[-1] == run_err.strip().splitlines()[-1]
