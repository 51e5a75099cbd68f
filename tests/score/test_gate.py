"""Contract of the CI quality gate (`make score`, `.ci/run`): `predigest score` against the committed
baseline exits 0 on today's judgment, and exits 1, naming the figure, when a rule change drops one."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from predigest.cli import main
from tasks.config.settings import Settings
from tests.helpers import EXPECTED, ROOT, point_flows_at, sample_copy

BASELINE = ROOT / "benchmarks" / "quality" / "corpus.json"


def _score(workspace: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(["score", "--workspace", str(workspace), "--expected", str(EXPECTED), "--baseline", str(BASELINE)])
    return rc, capsys.readouterr().out


def test_the_gate_holds_today_and_fails_when_a_rule_change_drops_a_figure(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    point_flows_at(monkeypatch, settings)
    workspace, _ = sample_copy(tmp_path)
    rc, out = _score(workspace, capsys)
    assert rc == 0, out
    assert "0 figures below the gate" in out
    # A rule change: the density threshold for "high" out of reach. 2026-10-07 ("high") falls.
    (workspace / "predigest-judgment.toml").write_text("[density]\nhigh = 100\n", encoding="utf-8")
    rc, out = _score(workspace, capsys)
    assert rc == 1
    assert "BELOW: inference/2026-10-07  density.recall 0.00 < 1.00" in out
    assert "BELOW: inference/2026-10-09" not in out
