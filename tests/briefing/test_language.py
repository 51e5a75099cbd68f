"""Contract: every fixed word of a briefing comes from the label tables of its language.

- `--lang en` is English throughout: the English table holds no CJK, and a briefing of an
  all-English window (notes, errors, a card, the queue) rendered in en, markdown and JSON, holds no
  CJK character at all (the density and credibility rules included).
- zh is Chinese throughout: the Chinese table holds no English word beyond the team's own terms
  (NET-new, arXiv, References, HF Daily, E1, predigest, Top, the knowledge path), and a zh briefing of
  an all-Chinese window holds no other ASCII word than those and what the window itself wrote.
- The density rule and the credibility rule are worded from their numbers: changing a weight
  changes the stated rule in both languages; the credibility rule never reads as a self-rating.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from tasks.briefing.assemble import build_content, judge_evening
from tasks.config.judgment import default_judgment, make_judgment, merge
from tasks.config.settings import Settings
from tasks.config.topics import resolve_topic
from tasks.inbox.outline_reader import stored_outline
from tasks.judge.density import DensityRule
from tasks.model.window_views import EntryView, MentionView, SourceView, WindowData
from tasks.model.windows import window_for
from tasks.render.labels import EN, LABELS, ZH, rule_text
from tasks.render.markdown import render_markdown
from tasks.render.sources_table import credibility_rule
from tasks.render.twin import render_json
from tasks.verify.markers import markers_of
from tasks.verify.observe import observed
from tests.helpers import NO_WORKSPACE

CJK = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z][A-Za-z-]+")
TEAM_TERMS = {"NET-new", "arXiv", "References", "HF", "Daily", "E1", "predigest", "Top", "knowledge", "md"}
TOPIC = resolve_topic("inference", Settings(), NO_WORKSPACE)
DAY = dt.date(2026, 10, 9)
NOON = dt.datetime(2026, 10, 9, 4, tzinfo=dt.UTC)


def _window(notes: dict[str, list[tuple[str, str, tuple[str, ...]]]], broken: str) -> WindowData:
    """Notes by path: (heading, text, ids) per entry; plus one unreadable source `broken`."""
    data = WindowData(window_for(DAY, TOPIC.schedule, TOPIC.timezone))
    for sid, (path, entries) in enumerate(notes.items(), 1):
        data.sources.append(SourceView(sid, path, "note", "alice", NOON, "filename", None))
        for k, (heading, text, ids) in enumerate(entries):
            label = "preamble" if not heading else f"#{k}"
            data.entries.append(EntryView(sid, path, "note", k, label, heading, heading or None, text, (),
                                          item_time=NOON, ids=ids, outline=stored_outline(text)))
            data.mentions += [MentionView(sid, path, "note", k, label, heading, heading, i, i, False, text, NOON)
                          for i in ids]
    data.mentions.append(MentionView(1, next(iter(notes)), "note", 1, "#1", "", None, None, "arXiv:2610.0x", True,
                                     "", NOON))
    data.sources.append(SourceView(99, broken, "note", "bob", NOON, "mtime", "not UTF-8"))
    return data


def _render(data: WindowData, lang: str) -> tuple[str, str]:
    known = ["inference", "rag"]
    papers = judge_evening(data, TOPIC)  # its verifications observed once, as the stages do
    content = build_content(data, TOPIC, known, observed(data, papers, TOPIC, known, ()), judged=papers)
    return render_markdown(content, lang), render_json(content, lang)


ENGLISH_WINDOW = {
    "inbox/alice/2026-10-09-1000-alice-serving-roundup.md": [
        ("", "Weekly digest of serving links, collected on the train.", ()),
        ("FooServe: fast prefill scheduling for inference", "- arXiv:2610.20001\n- 2x throughput on H100 GPU decode",
         ("2610.20001",)),
        ("BarCache official blog", "The official blog reports 30% lower latency for KV cache serving.", ()),
        ("QuuxKV: KV cache compression for decode", "- arXiv:2610.20003\n- adjacent to inference: GPU memory, "
         "needs verification", ("2610.20003",)),
    ],
    "inbox/alice/2026-10-09-1400-alice-bench.md": [
        ("Engine bench", "We measured vLLM against SGLang on H100: latency within 2%.", ()),
    ],
}
CHINESE_WINDOW = {
    "inbox/alice/2026-10-09-1000-alice-推理合集.md": [
        ("", "今天的推理合集，通勤路上攒的。", ()),
        ("某某调度：面向推理服务的投机解码调度器", "- 推理引擎吞吐提升两倍，延迟下降，前缀缓存复用", ("2610.20001",)),
        ("某某缓存官方博客", "官方博客称缓存服务延迟降低三成。", ()),
        ("某某压缩：推理服务的 KV 缓存压缩", "- 推理邻接，推理调度与吞吐，待核实", ("2610.20003",)),
    ],
    "inbox/alice/2026-10-09-1400-alice-实测.md": [("引擎实测", "我们实测了两个推理引擎，延迟相差百分之二。", ())],
}


def test_the_english_table_holds_no_cjk() -> None:
    assert set(EN) == set(ZH)
    assert {k: v for k, v in EN.items() if CJK.search(v)} == {}


def test_the_chinese_table_holds_no_english_beyond_the_team_terms() -> None:
    words = {(w, k) for k, v in ZH.items() for w in WORD.findall(re.sub(r"\{[^}]*\}", "", v))}
    # The site's words name the formats it links to (订阅 Atom, markdown, JSON, its diff) by their names.
    formats = {"Atom", "markdown", "JSON", "diff"}
    assert {(w, k) for w, k in words if w not in TEAM_TERMS | formats} == set()


def test_an_english_window_rendered_in_en_has_no_cjk_at_all() -> None:
    markdown, text = _render(_window(ENGLISH_WINDOW, "inbox/bob/broken.md"), "en")
    assert CJK.findall(markdown) == []
    doc = json.loads(text)
    # A paper's `reason` is worded from the label tables too; its evidence details quote the
    # sources, so the JSON is checked without them.
    for item in doc["increments"] + doc["citations"] + doc["off_topic"]:
        assert item["reason"] and CJK.findall(item["reason"]) == [], item["reason"]
        item.pop("evidence")
    assert CJK.findall(json.dumps(doc, ensure_ascii=False)) == []
    assert doc["lang"] == "en" and "Credibility rule" in markdown and "score = NET-new" in markdown
    assert {i["status"] for i in doc["increments"]} == {"net_new", "adjacent"}  # their lines are exercised
    assert all(s["credibility"] for s in doc["sources"])


def test_a_chinese_window_rendered_in_zh_has_no_english_fixed_wording() -> None:
    data = _window(CHINESE_WINDOW, "inbox/bob/坏文件.md")
    markdown, text = _render(data, "zh")
    written = {w for e in data.entries for w in WORD.findall(f"{e.path} {e.heading} {e.text}")}
    written |= {w for s in data.sources for w in WORD.findall(f"{s.path} {s.error or ''}")}
    # The window's own words, ids and the topic's name aside, every ASCII word is a team term.
    allowed = TEAM_TERMS | written | {TOPIC.name, "CST", "Asia", "Shanghai", "T"}
    doc = json.loads(text)
    # The merge proposal's object keys are names, not wording (section 五 points at them).
    merge = doc["knowledge_merge"]
    allowed |= set(WORD.findall(f"{merge['diff']} {merge['document']}"))
    assert sorted({w for w in WORD.findall(markdown) if w not in allowed}) == []
    assert {i["status"] for i in doc["increments"]} == {"net_new", "adjacent"}
    assert {w for s in doc["sources"] for w in WORD.findall(s["conclusion"] + s["credibility"])} <= allowed


@pytest.mark.parametrize("lang", sorted(LABELS))
def test_the_rules_are_worded_from_their_numbers(lang: str) -> None:
    L = LABELS[lang]
    rule = DensityRule.of(default_judgment())
    changed = DensityRule.from_mapping({"engineering_weight": 0.4, "high": 7}, rule.numbers())
    assert "0.4" not in rule_text(rule.numbers(), L) and "0.4" in rule_text(changed.numbers(), L)
    assert "7" in rule_text(changed.numbers(), L)
    base = default_judgment()
    harsher = make_judgment(merge(base.config, {"credibility": {"repost": 2, "malformed_penalty": 2}}))
    assert credibility_rule(L, harsher) != credibility_rule(L, base)
    assert "−2" in credibility_rule(L, harsher) and "−2" not in credibility_rule(L, base)
    # A briefing dropped into the inbox must not read as rating itself through its rule line.
    assert markers_of(base).stars.findall(credibility_rule(L, base)) == []


def test_every_reason_is_worded_in_both_languages() -> None:
    import string

    from tasks.model.judged import Reason
    from tasks.render.labels import LABELS, reason_text

    keys = {k for k in LABELS["zh"] if k.startswith("reason_") and k != "reason_sep"}
    assert keys and keys == {k for k in LABELS["en"] if k.startswith("reason_") and k != "reason_sep"}
    for key in sorted(keys):
        fields = [f for _, f, _, _ in string.Formatter().parse(LABELS["zh"][key]) if f]
        reason = (Reason(key.removeprefix("reason_"), tuple((f, f"<{f}>") for f in fields)), Reason("untouched"))
        zh, en = reason_text(reason, LABELS["zh"]), reason_text(reason, LABELS["en"])
        assert all(f"<{f}>" in zh and f"<{f}>" in en for f in fields)
        assert CJK.findall(en) == [] and CJK.findall(zh)


def test_every_reason_the_code_gives_has_wording() -> None:
    from tasks.render.labels import LABELS
    from tests.helpers import ROOT

    given = {m for path in (ROOT / "tasks").rglob("*.py")
             for m in re.findall(r'Reason\("([a-z_]+)"', path.read_text(encoding="utf-8"))}
    assert given and all(f"reason_{key}" in LABELS["zh"] and f"reason_{key}" in LABELS["en"] for key in given), given


@pytest.mark.parametrize(("n", "word"), [(0, "sources"), (1, "source"), (2, "sources")])
def test_english_counts_take_their_plural(n: int, word: str) -> None:
    # "{n} {n:source|sources}": the word a count takes; a count that is no number ("") reads as many.
    L = LABELS["en"]
    assert L["seen"].format(n=n, k=n, first="2026-10-09", days=n, earlier="").startswith(f" ({n} {word}, ")
    day = "day" if n == 1 else "days"
    assert L["v_compact_pending"].format(age=n, raised="2026-10-01") == f"{n} {day} open (raised 2026-10-01)"
    assert L["v_status_pending"].format(age=2, raised="a", last="b", limit="").endswith("stale after  days)")
    assert not [k for k, v in L.items() if "(s)" in v]  # no "day(s)" left in the English wording
    # Chinese has no plural: its wording is as written.
    assert LABELS["zh"]["seen"].format(n=1, k=1, first="x", days=1, earlier="") == "（1 个来源，1 个独立；首见 x，累计 1 天）"
