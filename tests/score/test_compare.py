"""Contract of `tasks.score`: per-category precision and recall of a briefing's JSON twin against a
labelled evening, the gate's thresholds and baseline, and that a falling figure fails the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tasks.score import gate
from tasks.score.compare import score_evening
from tasks.score.expected import LabelError, load_label, load_labels


def _label(tmp_path: Path, **extra: Any) -> Path:
    path = tmp_path / "2026-10-07.json"
    path.write_text(json.dumps({"topic": "t", "date": "2026-10-07", "cutoff": "2026-10-07T22:20:00+08:00", **extra}),
                    encoding="utf-8")
    return path


def _twin(**extra: Any) -> dict[str, Any]:
    return {"topic": "t", "date": "2026-10-07", "cutoff": "2026-10-07T22:20:00+08:00", "citations": [],
            "increments": [], "off_topic": [], "sources": [], "malformed": [], "verifications": [],
            "density": "low", **extra}


def test_net_new_precision_and_recall_and_the_wrong_papers_evidence(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, net_new=["2610.00001", "2610.00002"]))
    twin = _twin(citations=[
        {"arxiv_id": "2610.00001", "status": "net_new"},
        {"arxiv_id": "2610.00003", "status": "net_new", "decision": "t's", "reason": "vocabulary",
         "evidence": [{"kind": "vocabulary", "topic": "t", "weight": 2.0, "path": "inbox/a.md", "detail": "kv"}]},
    ])
    score = score_evening(twin, label)
    figure = score.figures["net_new"]
    assert (figure.precision, figure.recall) == (0.5, 0.5)
    assert figure.missing == ("2610.00002",) and figure.extra == ("2610.00003",)
    assert score.papers["2610.00003"]["evidence"][0]["kind"] == "vocabulary"
    assert score.papers["2610.00002"]["status"] == "not in the briefing"
    assert "net_new" in score.figures and "pending" not in score.figures  # unlabelled: not scored


def test_off_topic_is_kept_out_unless_reported_net_new(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, off_topic_ids=["2610.00009", "2610.00008"], net_new=["2610.00001"]))
    twin = _twin(citations=[{"arxiv_id": "2610.00009", "status": "adjacent"},
                            {"arxiv_id": "2610.00008", "status": "net_new"}],
                 off_topic=[{"arxiv_id": "2610.00001"}])
    figure = score_evening(twin, label).figures["off_topic"]
    assert figure.recall == 0.5 and figure.missing == ("2610.00008",)
    assert figure.precision == 0.0 and figure.extra == ("2610.00001",)


def test_pending_subjects_honour_match_and_count_a_subject_raised_twice(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, pending_verification=[
        {"subject": "Orthros workload boundaries", "source": "x", "match": ["2610.13735", "orthros"]},
        {"subject": "Acadify H100 benchmark", "source": "y"},
    ]))
    items = [
        {"subject": "2610.13735", "title": "Orthros: Phase-Aware", "status": "pending", "claim": "c"},
        {"subject": "Orthros", "title": "", "status": "stale", "claim": "c"},
        {"subject": "Orthrus", "title": "anchored", "status": "pending", "claim": "orthros is not this"},
        {"subject": "Acadify：H100 推理引擎 benchmark（1024 并发）", "title": "", "status": "pending"},
        {"subject": "Resolved thing", "status": "resolved"},
    ]
    figure = score_evening(_twin(verifications=items), label).figures["pending"]
    assert figure.recall == 1.0
    assert figure.precision == 0.5  # the second Orthros and Orthrus (named after another thing)
    assert "Orthros (raised twice)" in figure.extra and "Orthrus" in figure.extra


def test_engineering_terms_and_density(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, density="medium-low", engineering_new=[
        {"name": "Burgei taxonomy", "any": ["burgei", "六层"]}, "TPU Inference Externalization (TorchTPU)"]))
    twin = _twin(density="medium", increments=[
        {"status": "engineering", "title": "LLM Systems 六层分类学（Burgei）"},
        {"status": "engineering", "title": "TPU Inference Externalization：TorchTPU 让 vLLM 成为一等公民"},
    ])
    score = score_evening(twin, label)
    assert (score.figures["engineering"].precision, score.figures["engineering"].recall) == (1.0, 1.0)
    assert score.figures["density"].recall == 0.0 and score.figures["density"].extra == ("medium",)


def test_a_falling_figure_fails_the_baseline_and_a_missing_evening_too(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, net_new=["2610.00001"]))
    good = score_evening(_twin(citations=[{"arxiv_id": "2610.00001", "status": "net_new"}]), label)
    baseline = gate.read_baseline(_write(tmp_path / "b.json", gate.baseline_text([good])))
    assert gate.below_baseline([good], baseline) == []
    worse = score_evening(_twin(citations=[{"arxiv_id": "2610.00001", "status": "net_new"},
                                           {"arxiv_id": "2610.00002", "status": "net_new"}]), label)
    short = gate.below_baseline([worse], baseline)
    assert [(s.evening, s.figure, s.value) for s in short] == [("t/2026-10-07", "net_new.precision", 0.5)]
    assert {s.figure for s in gate.below_baseline([], baseline)} == {"net_new.precision", "net_new.recall"}


def test_minimums(tmp_path: Path) -> None:
    label = load_label(_label(tmp_path, net_new=["2610.00001", "2610.00002"]))
    half = score_evening(_twin(citations=[{"arxiv_id": "2610.00001", "status": "net_new"}]), label)
    assert gate.parse_minimums("net_new=1.0, density.recall=1") == {"net_new": 1.0, "density.recall": 1.0}
    assert [s.figure for s in gate.below_minimums([half], gate.parse_minimums("net_new=1.0"))] == ["net_new"]
    assert gate.below_minimums([half], gate.parse_minimums("net_new.precision=1.0")) == []
    for bad in ("net_new", "nothing=1", "net_new.f1=1", "net_new=high"):
        with pytest.raises(ValueError):
            gate.parse_minimums(bad)


def test_bad_labels_are_refused_with_the_file_named(tmp_path: Path) -> None:
    (tmp_path / "2026-10-07.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(LabelError, match="2026-10-07.json"):
        load_labels(tmp_path)
    (tmp_path / "2026-10-07.json").write_text(json.dumps({"topic": "t"}), encoding="utf-8")
    with pytest.raises(LabelError, match="topic`, `date` and `cutoff"):
        load_labels(tmp_path)
    with pytest.raises(LabelError, match="no such folder"):
        load_labels(tmp_path / "nope")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
