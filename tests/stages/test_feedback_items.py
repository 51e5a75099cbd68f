"""Contract (issue 49, verdicts on items): a reader's verdict on a pending item or an engineering
increment, by the key its page shows.

- `settled` (with a link) resolves a pending item: the next evening lists it as resolved, 「由 NAME
  于 DATE 确认」 / "confirmed by NAME on DATE", the link as its evidence; the evening after no
  longer lists it.
  The staleness report counts it resolved from then on: it never turns stale.
- `not-a-contradiction` drops a contradiction of the numbers check from the next evening.
- `not-new` makes an engineering increment confirmatory, on the next evening, under another name.
- Each is named in section 五 and the twin (who, when), and `predigest explain KEY` shows it
  first, above the rest of what the briefing holds about the item.
- The briefing the verdict answers, re-briefed after it is recorded, keeps its bytes.
- Refused in one line by `predigest feedback`: a key the briefing does not show, `settled`
  without a reason, a verdict about the wrong kind of item. Written by hand: a line without a
  readable time is named as undated, not applied; a pending item's key no verification of the
  topic has, an engineering increment's key no note names, a date the schedule has no briefing on
  and a date after the day the line was recorded are named with file, line and why (zh and en),
  and applied nowhere; a feedback file of no topic is named. The file's source row says how many
  verdicts it holds and which lines are in error.
Workspaces are generated (tests/generate/replay.py: Chinese notes; an English and a Chinese note on
one engineering release).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from predigest.cli import main
from predigest.explain import evidence_text, explanations
from tasks.common.item_keys import pending_key
from tasks.config.settings import Settings
from tasks.inbox.feedback_file import feedback_path, format_line
from tasks.render.labels import LABELS
from tasks.stages.briefings import BriefingResult
from tasks.stages.feedback import record_feedback
from tasks.stages.verifications import report_staleness
from tasks.stages.workspace import register_workspace
from tests.generate.files import local, write_file
from tests.generate.replay import PAPER, STALE_NAME, TOPIC, day_of, write_items_days
from tests.helpers import brief_day, point_flows_at, published_briefing

D1, D2, D3 = day_of(1), day_of(2), day_of(3)
LINK = "https://github.com/example/quokka/issues/7"


def _workspace(root: Path) -> Path:
    return write_items_days(root)


def _brief(settings: Settings, root: Path, day: dt.date) -> BriefingResult:
    return brief_day(settings, root, TOPIC, day)


def _published(settings: Settings, day: dt.date) -> tuple[str, dict[str, Any]]:
    md, twin = published_briefing(settings, TOPIC, day)
    return md.decode("utf-8"), twin


def _items(twin: dict[str, Any]) -> list[dict[str, Any]]:
    return [*twin["verifications"], *twin["earlier_verifications"]]


def _explained(settings: Settings, root: Path, day: dt.date, key: str) -> tuple[dict[str, Any], str]:
    (explained,) = explanations(settings, root, [TOPIC], day, None, [key])
    return explained, evidence_text(explained)


def _first_evening(settings: Settings, tmp_path: Path, lang: str) -> tuple[Settings, Path, tuple[str, dict[str, Any]]]:
    """The settings in `lang`, the workspace, and day 1's briefing as published."""
    settings = settings.model_copy(update={"lang": lang})
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D1).written
    return settings, root, _published(settings, D1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_settled_resolves_the_item_from_the_next_evening_with_who_and_when(
        clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    settings, root, before = _first_evening(settings, tmp_path, lang)
    (item,) = [v for v in _items(before[1]) if v["subject"] == STALE_NAME]
    assert item["status"] == "pending" and item["item_key"].startswith("p-")
    record_feedback(settings, root, TOPIC, D1, item["item_key"], "settled", "jay", LINK, now=local(D2, 9, 30))
    assert not _brief(settings, root, D1).written  # recorded after D1's cutoff: D1 never changes
    assert _published(settings, D1) == before
    assert _brief(settings, root, D2).written
    markdown, twin = _published(settings, D2)
    (settled,) = [v for v in _items(twin) if v["item_key"] == item["item_key"]]
    assert (settled["status"], settled["confirmed_by"], settled["confirmed_on"], settled["evidence"]) == (
        "resolved", "jay", D2.isoformat(), LINK)
    confirmed = "由 jay 于 2026-11-02 确认" if lang == "zh" else "confirmed by jay on 2026-11-02"
    assert confirmed == LABELS[lang]["v_confirmed"].format(by="jay", date=D2.isoformat()) and confirmed in markdown
    assert markdown.index(confirmed) > markdown.index(LABELS[lang]["s3"].split("{")[0])
    (note,) = twin["reader_verdicts"]
    assert (note["item"], note["verdict"], note["by"], note["line"]) == (item["item_key"], "settled", "jay", 3)
    explained, text = _explained(settings, root, D2, item["item_key"])
    (record,) = explained["items"]
    assert record["verdict"]["verdict"] == "settled" and explained["not_in_window"] == []
    assert text.index("reader verdict: settled · by jay") < text.index("claim: ")
    assert _brief(settings, root, D3).written  # the evening after: resolved, no longer listed
    assert all(v["item_key"] != item["item_key"] for v in _items(_published(settings, D3)[1]))


def test_a_settled_item_never_turns_stale_in_the_staleness_report(clean_db: Engine, settings: Settings,
                                                                  tmp_path: Path) -> None:
    settings, root, before = _first_evening(settings, tmp_path, "zh")
    (item,) = [v for v in _items(before[1]) if v["subject"] == STALE_NAME]
    ref = register_workspace(settings, root)
    late = day_of(1 + settings.stale_after_days)  # the day it turns stale unless someone settles it
    unanswered, first = report_staleness(settings, ref, TOPIC, late), report_staleness(settings, ref, TOPIC, D1)
    assert item["item_key"] in {pending_key(k) for k in unanswered["newly_stale"]}
    record_feedback(settings, root, TOPIC, D1, item["item_key"], "settled", "jay", LINK, now=local(D2, 9, 30))
    assert _brief(settings, root, D2).written  # the evening that reads (ingests) the verdict
    assert report_staleness(settings, ref, TOPIC, D1) == first  # recorded after D1's cutoff
    answered = report_staleness(settings, ref, TOPIC, late)
    assert item["item_key"] not in {pending_key(k) for k in answered["newly_stale"]}
    assert (answered["stale"] + answered["pending"], answered["resolved"]) == (
        unanswered["stale"] + unanswered["pending"] - 1, unanswered["resolved"] + 1)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_not_a_contradiction_drops_the_conflict(clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    settings, root, before = _first_evening(settings, tmp_path, lang)
    (conflict,) = [v for v in _items(before[1]) if "conflict" in v["kinds"]]
    assert _brief(settings, root, D2).written
    assert conflict["item_key"] in {v["item_key"] for v in _items(_published(settings, D2)[1])}
    record_feedback(settings, root, TOPIC, D1, conflict["item_key"], "not-a-contradiction", "spark",
                    "different batch sizes", now=local(D2, 9, 30))
    assert not _brief(settings, root, D1).written and _published(settings, D1) == before
    assert _brief(settings, root, D2).written
    markdown, twin = _published(settings, D2)
    assert conflict["item_key"] not in {v["item_key"] for v in _items(twin)}
    (note,) = twin["reader_verdicts"]
    assert (note["item"], note["verdict"], note["by"]) == (conflict["item_key"], "not-a-contradiction", "spark")
    assert twin["reader_verdicts_text"] in markdown and LABELS[lang]["verdict_not_a_contradiction"] in markdown
    explained, text = _explained(settings, root, D2, conflict["item_key"])
    (record,) = explained["items"]
    assert (record["status"], record["verdict"]["by"]) == ("dropped", "spark")
    assert "reader verdict: not-a-contradiction · by spark" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_not_new_makes_the_increment_confirmatory_under_its_other_name(
        clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    settings, root, before = _first_evening(settings, tmp_path, lang)
    (kestrel,) = [i for i in before[1]["increments"] if "Kestrel" in i["title"]]
    assert kestrel["status"] == "engineering" and kestrel["item_key"].startswith("e-")
    assert _brief(settings, root, D2).written
    (again,) = [i for i in _published(settings, D2)[1]["increments"] if "Kestrel" in i["title"]]
    assert again["item_key"] != kestrel["item_key"]  # named otherwise in the evening after
    record_feedback(settings, root, TOPIC, D1, kestrel["item_key"], "not-new", "jay", now=local(D2, 9, 30))
    assert not _brief(settings, root, D1).written and _published(settings, D1) == before
    assert _brief(settings, root, D2).written
    markdown, twin = _published(settings, D2)
    assert all("Kestrel" not in i["title"] for i in twin["increments"])
    (moved,) = twin["confirmatory"]
    assert moved["item_key"] == again["item_key"] and moved["evidence"][0]["kind"] == "reader_verdict"
    said = "jay · 2026-11-02 09:30+08:00 · not-new"
    assert moved["reason"].startswith("读者判定不是新增（" + said if lang == "zh" else "a reader decided it is not new (" + said)
    assert twin["reader_verdicts_text"] in markdown
    explained, text = _explained(settings, root, D2, again["item_key"])
    (record,) = explained["items"]
    assert record["verdict"]["item"] == again["item_key"] and record["rest"]  # the other evidence follows
    assert text.index("reader verdict: not-new · by jay") < text.index(record["rest"][0])


def test_bad_feedback_is_refused_or_named(
        clean_db: Engine, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path / "ws")
    assert _brief(settings, root, D1).written
    twin = _published(settings, D1)[1]
    (item,) = [v for v in _items(twin) if v["subject"] == STALE_NAME]
    point_flows_at(monkeypatch, settings)
    capsys.readouterr()
    base = ["feedback", "--workspace", str(root), "--by", "jay", "--topic", TOPIC, "--date", D1.isoformat()]
    cases = {
        "shows no item p-00000000": [*base, "p-00000000", "settled", "--reason", LINK],
        "verdict settled needs a reason or a link": [*base, item["item_key"], "settled"],
        "verdict not-new is about an engineering increment": [*base, item["item_key"], "not-new"],
    }
    for said, argv in cases.items():
        assert main(argv) == 2, said
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1 and said in err, err
    assert not (root / feedback_path(TOPIC)).exists()
    # Written by hand: a line without a readable time is named as undated, and not applied; a key no
    # item of the topic has is named with its line; a feedback file of no topic is named too.
    good = format_line(D1, item["item_key"], "settled", "jay", local(D2, 9, 0), LINK)
    undated = good.replace("at: 2026-11-02T09:00:00+08:00", "at: yesterday")
    typo = format_line(D1, "p-0000000f", "settled", "jay", local(D2, 9, 5), LINK)
    write_file(root, feedback_path(TOPIC), f"# Feedback\n\n{good}\n{undated}\n{typo}\n")
    write_file(root, feedback_path("nosuch"), f"# Feedback\n\n{good}\n", at=local(D2, 10, 0))
    assert _brief(settings, root, D2).written
    markdown, twin2 = _published(settings, D2)
    (row,) = [s for s in twin2["sources"] if s["path"] == feedback_path(TOPIC)]
    assert row["error"] == "malformed feedback: line 4: undated verdict (time 'yesterday' is not an ISO time), not applied"
    assert [(n["line"], n["verdict"]) for n in twin2["reader_verdicts"]] == [(3, "settled"), (5, "unknown")]
    assert f"{feedback_path(TOPIC)} 第 5 行：p-0000000f 没有这个条目，未采用" in markdown
    (other,) = [u for u in twin2["undated"] if u["path"] == feedback_path("nosuch")]
    assert "feedback for no topic: organized/knowledge/nosuch.md does not exist" in other["reason"]


NAMED = {
    "zh": ("{path} 第 4 行：e-0000000f 没有这个条目，未采用",
           "{path} 第 5 行：{paper} 答复 {saturday} 的简报，但本主题的日程那天没有简报，未采用",
           "{path} 第 6 行：{paper} 答复 {d3} 的简报，但记下时还没到那一天，未采用",
           "读者判定 4 条（截止前记下的）；有误的行：malformed feedback: line 7: "),
    "en": ("{path} line 4: e-0000000f names no item of this topic, not applied",
           "{path} line 5: {paper} answers the briefing of {saturday}, but the topic's schedule has no briefing that day; "
           "not applied",
           "{path} line 6: {paper} answers the briefing of {d3}, a day after it was recorded; not applied",
           "4 reader verdicts recorded by the cutoff; lines in error: malformed feedback: line 7: "),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hand_written_verdicts_on_no_item_or_no_briefing_are_named_not_applied(
        clean_db: Engine, settings: Settings, tmp_path: Path, lang: str) -> None:
    # Sunday to Thursday: day 1 is a Sunday, so the Saturday before it has no briefing.
    settings, root, before = _first_evening(settings.model_copy(update={"briefing_days": "0-4"}), tmp_path, lang)
    saturday = D1 - dt.timedelta(days=1)
    assert saturday.weekday() == 5
    (kestrel,) = [i for i in before[1]["increments"] if "Kestrel" in i["title"]]
    lines = [format_line(D1, kestrel["item_key"], "not-new", "jay", local(D2, 9, 0)),  # line 3: applied
             format_line(D1, "e-0000000f", "not-new", "jay", local(D2, 9, 5)),  # no increment has this key
             format_line(saturday, PAPER, "not-ours", "jay", local(D2, 9, 10)),  # no briefing that day
             format_line(D3, PAPER, "not-ours", "jay", local(D2, 9, 15)),  # answers a day not yet come
             f"- date: {D1.isoformat()} · item: {PAPER} · by: jay"]
    write_file(root, feedback_path(TOPIC), "# Feedback\n\n" + "\n".join(lines) + "\n", at=local(D2, 9, 20))
    assert not _brief(settings, root, D1).written and _published(settings, D1) == before  # after D1's cutoff
    assert _brief(settings, root, D2).written
    markdown, twin = _published(settings, D2)
    assert [(n["line"], n["verdict"]) for n in twin["reader_verdicts"]] == [
        (3, "not-new"), (4, "unknown"), (5, "no_briefing"), (6, "before_briefing")]
    path = feedback_path(TOPIC)
    *named, row_said = (t.format(path=path, paper=PAPER, saturday=saturday, d3=D3) for t in NAMED[lang])
    for said in named:
        assert said in markdown and said in twin["reader_verdicts_text"], said
    (row,) = [s for s in twin["sources"] if s["path"] == path]
    assert row["summary"].startswith(row_said), row["summary"]
    assert PAPER not in {p["arxiv_id"] for p in twin["off_topic"]}
    # Day 1's key, recorded in day 3's window: known from the notes day 1's briefing read, not named.
    again = format_line(D1, kestrel["item_key"], "not-new", "spark", local(D3, 9, 0))
    write_file(root, path, "# Feedback\n\n" + "\n".join([*lines, again]) + "\n", at=local(D3, 9, 0))
    assert _brief(settings, root, D3).written  # the line answering day 3 is not applied there either
    twin3 = _published(settings, D3)[1]
    assert PAPER not in {p["arxiv_id"] for p in twin3["off_topic"]}
    assert [n["verdict"] for n in twin3.get("reader_verdicts", [])] in ([], ["not-new"])  # named once, by day 2
