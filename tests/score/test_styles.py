"""Contract: the figures `predigest score` gives corpus2's and the held-out sets' labelled evenings do not move when the same
notes are saved with a BOM and CRLF, when each note's sections come in another order, when every
author's folder has another name, when headings sit one level deeper or are written setext-style,
when 「条目#N」 labels are written "Entry N -", or when `###` headings are written as bold-only lines
or 「（一）」-numbered lines (`tests/generate/styles.py`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from predigest.cli import main
from tasks.config.settings import Settings
from tests.generate.styles import STYLES
from tests.helpers import FIXTURES, point_flows_at

SETS = {"corpus2": FIXTURES / "corpus2", "heldout": FIXTURES / "heldout", "heldout2": FIXTURES / "heldout2",
        "heldout3": FIXTURES / "heldout3"}


def _figures(workspace: Path, labels: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    rc = main(["score", "--workspace", str(workspace), "--expected", str(labels), "--write-baseline", str(out)])
    assert rc == 0, capsys.readouterr().out
    return json.loads(out.read_text(encoding="utf-8"))


def _base_and_shifted(labelled: Path, style: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    monkeypatch.setenv("PREDIGEST_BRIEFING_DAYS", "1-6")  # the default schedule (the suite briefs daily)
    base = _figures(labelled / "workspace", labelled / "expected", tmp_path / "base.json", capsys)
    workspace, labels = tmp_path / "ws", tmp_path / "labels"
    shutil.copytree(labelled / "workspace", workspace)
    shutil.copytree(labelled / "expected", labels)
    STYLES[style](workspace, labels)
    return base, _figures(workspace, labels, tmp_path / "shifted.json", capsys)


@pytest.mark.slow
@pytest.mark.parametrize("labelled", sorted(SETS))
@pytest.mark.parametrize("style", sorted(STYLES))
def test_a_style_shift_keeps_every_figure(labelled: str, style: str, clean_db: Engine, settings: Settings, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    point_flows_at(monkeypatch, settings)
    base, shifted = _base_and_shifted(SETS[labelled], style, tmp_path, monkeypatch, capsys)
    assert shifted == base
