"""Contract (issue 49, membership feedback): a reader's verdict in `organized/feedback/<topic>.md`.

- `not-ours` recorded the morning after D: D's briefing, re-briefed with the verdict stored, keeps
  its bytes (as of D's cutoff it did not exist); D+1's no longer counts the paper as an increment,
  and says a reader decided, who and when (zh and en).
- `ours` makes a paper a source excludes from the topic the topic's (NET-new).
- `predigest explain` shows the verdict first, above every other piece of evidence.
- A malformed line is named, with its line, in the error of the file's source row of the next
  briefing; the well-formed lines still count.
- `predigest feedback` refuses in one line (exit 2) an unknown topic, a malformed id and a date
  with no published briefing, and writes nothing.
Workspaces are generated (tests/generate/replay.py).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from predigest.cli import main
from predigest.explain import evidence_text, explanations
from tasks.config.settings import Settings
from tasks.inbox.feedback_file import feedback_path, format_line, parse_feedback
from tasks.render.labels import LABELS
from tasks.stages.briefings import BriefingResult
from tasks.stages.feedback import record_feedback
from tests.generate.files import local, write_file
from tests.generate.replay import PAPER, TOPIC, day_of, write_day
from tests.helpers import brief_day, point_flows_at, published_briefing

D1, D2 = day_of(1), day_of(2)
OTHER = "2611.00040"  # named on D2 by a note that says it is not inference's


def _workspace(root: Path) -> Path:
    for index in (1, 2):
        write_day(root, index)
    write_file(root, f"inbox/spark/{D2.isoformat()}T1100-spark-retrieval.md",
               f"# Retrieval 笔记\n\n## 条目1 · RetrieveX: Dense Retrieval for RAG（arXiv:{OTHER}）\n\n"
               "- 检索增强生成的召回评测，不进 inference。\n")
    return root


def _brief(settings: Settings, root: Path, day: dt.date) -> BriefingResult:
    return brief_day(settings, root, TOPIC, day)


def _published(settings: Settings, day: dt.date) -> tuple[bytes, dict[str, Any]]:
    md, twin = published_briefing(settings, TOPIC, day)
    return md, twin


def _status(twin: dict[str, Any], arxiv_id: str) -> str:
    if any(i.get("arxiv_id") == arxiv_id for i in twin["increments"]):
        return "increment"
    return "off_topic" if any(p["arxiv_id"] == arxiv_id for p in twin["off_topic"]) else "absent"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_not_ours_holds_from_the_next_evening_and_never_changes_the_evening_it_answers(
        clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    settings = settings.model_copy(update={"lang": lang})
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D1).written
    before = _published(settings, D1)
    assert _status(before[1], PAPER) == "increment"
    record_feedback(settings, root, TOPIC, D1, f"arXiv:{PAPER}v2", "not-ours", "jay", "training, not serving",
                    now=local(D2, 9, 30))
    assert not _brief(settings, root, D1).written  # as of D1's cutoff the verdict did not exist
    assert _published(settings, D1) == before
    assert _brief(settings, root, D2).written
    markdown, twin = _published(settings, D2)
    assert _status(twin, PAPER) == "off_topic"
    (off,) = [p for p in twin["off_topic"] if p["arxiv_id"] == PAPER]
    said = "jay · 2026-11-02 09:30+08:00 · not-ours · training, not serving"
    assert off["reason"] == ("读者判定不属于 inference（" + said + "）" if lang == "zh"
                             else "a reader decided it is not inference's (" + said + ")")
    assert PAPER in markdown.decode("utf-8")  # listed among the other topics' papers, not as an increment


def test_ours_makes_an_excluded_paper_the_topics(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D2).written
    assert _status(_published(settings, D2)[1], OTHER) == "off_topic"
    record_feedback(settings, root, TOPIC, D2, OTHER, "ours", "spark", now=local(D2, 21, 0))
    assert _brief(settings, root, D2).written
    twin = _published(settings, D2)[1]
    (inc,) = [i for i in twin["increments"] if i.get("arxiv_id") == OTHER]
    assert inc["status"] == "net_new"


def test_explain_shows_the_verdict_first(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D1).written
    record_feedback(settings, root, TOPIC, D1, PAPER, "not-ours", "jay", now=local(D2, 9, 30))
    (explained,) = explanations(settings, root, [TOPIC], D2, None, [PAPER])
    (paper,) = explained["papers"]
    assert paper["status"] == "off_topic"
    first = paper["evidence"][0]
    assert (first["kind"], first["topic"], first["path"]) == ("reader_verdict", TOPIC, feedback_path(TOPIC))
    assert first["line"] == 3 and paper["statements"][0] == first
    assert len(paper["evidence"]) > 1  # the sources' evidence is still shown, after it
    text = evidence_text(explained)
    assert text.index("reader_verdict") < text.index(f"| {paper['evidence'][1]['kind']} |")
    # The evening before the verdict was recorded knows nothing of it.
    (earlier,) = explanations(settings, root, [TOPIC], D1, None, [PAPER])
    assert all(e["kind"] != "reader_verdict" for e in earlier["papers"][0]["evidence"])


def test_a_malformed_line_is_named_in_the_next_briefings_sources(
        clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    good = format_line(D1, PAPER, "not-ours", "jay", local(D2, 9, 0))
    bad = format_line(D1, OTHER, "ours", "spark", local(D2, 9, 5)).replace("verdict: ours", "verdict: maybe")
    write_file(root, feedback_path(TOPIC), f"# Feedback · {TOPIC}\n\n{good}\n{bad}\n- see the thread above\n")
    assert _brief(settings, root, D2).written
    twin = _published(settings, D2)[1]
    (row,) = [s for s in twin["sources"] if s["path"] == feedback_path(TOPIC)]
    assert row["error"] == ("malformed feedback: line 4: verdict 'maybe' is not one of ours, not-ours, settled, not-a-contradiction, not-new; "
                            "line 5: not a verdict (missing date, item, verdict, by, at)")
    assert _status(twin, PAPER) == "off_topic"  # the well-formed line counts
    # Its good lines were applied: the row does not say the file went unchecked.
    assert row["conclusion"] == LABELS["zh"]["c_feedback_errors"]


def test_feedback_lines_read_back_as_written() -> None:
    at = local(D2, 9, 30)
    line = format_line(D1, PAPER, "ours", "jay  lee", at, "see https://example.org/a · b")
    parsed = parse_feedback(f"# Feedback\n\n{line}\n  continued\n\nnot a list item: verdict: ours\n")
    (v,) = parsed.lines
    assert (v.date, v.item, v.verdict, v.by, v.at, v.reason, v.line) == (
        D1, PAPER, "ours", "jay lee", at, "see https://example.org/a · b continued", 3)
    assert parsed.errors == () and parsed.latest == at
    no_offset = parse_feedback(line.replace("+08:00", "") + "\n")
    assert no_offset.lines == () and "has no UTC offset" in no_offset.errors[0]


def test_the_command_refuses_in_one_line(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D1).written
    point_flows_at(monkeypatch, settings)
    capsys.readouterr()
    base = ["feedback", "--workspace", str(root), "--by", "jay"]
    cases = {
        "unknown topic 'nosuch'": [*base, "--topic", "nosuch", "--date", D1.isoformat(), PAPER, "not-ours"],
        "'2611.0001x' is not an arXiv id": [*base, "--topic", TOPIC, "--date", D1.isoformat(), "2611.0001x", "ours"],
        f"no published briefing of {TOPIC} {D2.isoformat()}": [*base, "--topic", TOPIC, "--date", D2.isoformat(),
                                                                 PAPER, "ours"],
    }
    for said, argv in cases.items():
        assert main(argv) == 2, said
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and said in err, err
    assert not (root / feedback_path(TOPIC)).exists()
    assert main([*base, "--topic", TOPIC, "--date", D1.isoformat(), PAPER, "not-ours", "--reason", "not serving"]) == 0
    (line,) = [x for x in (root / feedback_path(TOPIC)).read_text(encoding="utf-8").splitlines() if x.startswith("- ")]
    (v,) = parse_feedback(line + "\n").lines
    assert (v.date, v.item, v.verdict, v.by, v.reason, v.at.utcoffset()) == (
        D1, PAPER, "not-ours", "jay", "not serving", dt.timedelta(hours=8))
