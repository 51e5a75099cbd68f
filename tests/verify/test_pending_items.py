"""Contract of section 三's pending items (issue 12, point 1), on generated notes in Chinese and English:

- an item's subject is what is in doubt (a paper as title + id, a system, a claim); a heading made
  only of markers ("⚠️ 待核实", "Needs verification", "未解决", "五、摘要") or a config key is never
  one, and a hedge whose only subject would be such a heading raises nothing; under a hedging
  heading each list item is in doubt, about its own subject;
- one item per subject: the same question asked by three notes (zh and en, with and without the id)
  is one item with three sources;
- 现象/风险/建议 are the sources' own sentences without the note's labels (⚠️, T2, 待核实 ·,
  "Needs verification:", "TODO verify"); a part the source does not give stays empty;
- a published briefing dropped into the inbox (an echo) does not raise again what the knowledge
  document has anchored since, nor what a note of the window or of an earlier one settled;
- a knowledge-document entry anchored in the window that says an open subject is settled resolves it;
- items of earlier days not mentioned in the window stay tracked, come after the window's, and the
  markdown lists them one line each; markdown and JSON carry the same items.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import re
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import Engine

from tasks.config.judgment import default_judgment, make_judgment, merge
from tasks.config.settings import Settings
from tasks.inbox.outline_reader import stored_outline
from tasks.model.judged import StatusAsOf
from tasks.model.window_views import EntryView
from tasks.render.labels import LABELS
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.stages.verifications import derive_verifications
from tasks.verify import items
from tasks.verify.hedged import entry_hedges
from tasks.verify.items import (
    MAX_COINED_FIGURES,
    _exact_keys,
    _named,
    _same_subject,
    figures,
    merge_into,
    one_per_subject,
)
from tasks.verify.markers import markers_of, strip_labels
from tasks.verify.names import names_of
from tasks.verify.passage import hedge_parts
from tasks.verify.status import OPEN
from tests.helpers import ingest_all

M = markers_of(default_judgment())
N = names_of(default_judgment())

D1 = dt.date(2026, 11, 2)
TOPIC = "inference"
PAPER = "2611.00110"  # FooServe, hedged in three notes
ANCHORED = "2611.00120"  # BarKV: restated by an echo after the doc anchored it
MARKERS = ["⚠️ T2 待核实 · ", "Needs verification: ", "TODO verify: ", "**存疑**：", "- [ ] 待核实 · "]


# --- pure pieces ---------------------------------------------------------------------------------


@pytest.mark.parametrize("label", MARKERS)
@pytest.mark.parametrize("claim", ["PreScale（arXiv:2610.10102）只有摘要级数字", "FooServe's 2.1× number is single-GPU"])
def test_labels_are_stripped_and_the_claim_kept(label: str, claim: str) -> None:
    assert strip_labels(M, label + claim) == claim


@pytest.mark.parametrize("heading", [
    "⚠️ 待核实", "Needs verification", "needs verification:", "未解决", "五、摘要", "## Summary", "T3", "TODO verify",
    "kv_cache_dtype", "--max-num-seqs",
])
def test_markers_headings_and_config_keys_name_nothing(heading: str) -> None:
    assert N.names_nothing(heading)


@pytest.mark.parametrize("name", ["FooServe", "Acadify：H100 推理引擎 benchmark", "⚠️ T2 待核实 · PreScale", "LoRA-Pool",
                                  "T4 GPU 延迟"])
def test_things_are_names(name: str) -> None:
    assert not N.names_nothing(name)


def _same_as(a: StatusAsOf, b: StatusAsOf) -> bool:
    """The plain rule one_per_subject must agree with: two listed verifications are about one thing."""
    return _same_subject(M, a.subject, a.title, figures(a.claim), b.subject, b.title, figures(b.claim))


def test_parts_come_from_the_passage_sentences() -> None:
    zh = ("## FooServe\n\n- 吞吐 2.1×（单卡 A100）。\n- **待核实**：这组数字只在单卡上测过，多卡没有数据。\n"
          "- 直接引用可能高估多卡收益。\n- 建议：等作者的多卡 benchmark 再引用。\n\n## Other\n\n- 无关。\n")
    parts = hedge_parts(M, zh, "待核实：这组数字只在单卡上测过，多卡没有数据。", ("FooServe",))
    assert parts.phenomenon.startswith("吞吐 2.1×") and "多卡没有数据" in parts.phenomenon  # the claim, then what is missing
    assert parts.risk == "直接引用可能高估多卡收益。"
    assert parts.advice == "等作者的多卡 benchmark 再引用。"
    assert "待核实" not in parts.phenomenon and "无关" not in parts.phenomenon
    en = "- Needs verification: FooServe's 2.1x was measured on one A100. It might not hold on H100. We should rerun it.\n"
    parts = hedge_parts(M, en, en.strip("- \n"), ("FooServe",))
    assert parts.phenomenon == "FooServe's 2.1x was measured on one A100."
    assert parts.risk == "It might not hold on H100." and parts.advice == "We should rerun it."
    bare = hedge_parts(M, "- 待核实：FooServe 的 P99。\n", "待核实：FooServe 的 P99。")
    assert bare.risk == "" and bare.advice == ""  # nothing invented
    lone = hedge_parts(M, "- ⚠️ 待核实。FooServe 的 2.1× 只在单卡上测过。直接引用可能高估。\n",
                       "⚠️ 待核实。FooServe 的 2.1× 只在单卡上测过。直接引用可能高估。")
    assert lone.phenomenon == "FooServe 的 2.1× 只在单卡上测过。" and lone.risk == "直接引用可能高估。"
    siblings = ("- FlashMLA：带宽 ~3000 GB/s 待核实，要对照官方 repo。\n- DeepEP：EP all-to-all。\n"
                "- SEIS 附录 E 精读。\n")
    assert "DeepEP" not in str(hedge_parts(M, siblings, "FlashMLA：带宽 ~3000 GB/s 待核实，要对照官方 repo。"))


def _entry(heading: str, text: str) -> EntryView:
    title = heading.split(" › ")[-1]
    # As ingest stores it: the text's outline with its part of the parse (the items' tree).
    return EntryView(1, "inbox/x/n.md", "note", 1, None, heading, title, text, (), outline=stored_outline(text))


def test_a_hedging_heading_puts_its_items_in_doubt() -> None:
    listed = entry_hedges(_entry("Needs verification", "- BlipRoute P99: blog only.\n- `kv_cache_dtype`\n"), M)
    assert [h["text"] for h in listed] == ["BlipRoute P99: blog only.", "`kv_cache_dtype`"]
    named = entry_hedges(_entry("三、值得警惕的矛盾或待核实说法 › ⚠️ T1 待核实 · LoRA-Pool（arXiv:2610.04377）",
                                "状态：待核实 · 已挂 3 天\n现象：P99 TTFT <15% 只有摘要级数字\n建议：读正文\n"), M)
    assert (named[0]["text"], named[0]["about"]) == ("现象：P99 TTFT <15% 只有摘要级数字", "LoRA-Pool（arXiv:2610.04377）")
    assert entry_hedges(_entry("三、值得警惕的矛盾或待核实说法", "下面三条。\n"), M) == []  # a list's heading names nothing
    assert entry_hedges(_entry("FooServe", "- 吞吐 2.1×。\n"), M) == []  # no marker, no hedge


def test_hedging_heading_items_come_from_the_stored_tree() -> None:
    """Each top-level item is one hedge, its nested items and wrapped lines inside it; a table's
    header and delimiter rows are no claims (each table's), and fenced code is quoted, not said."""
    text = ("- BlipRoute P99: blog only,\n  no trace.\n  - nested detail\n- KVPipe 3×\n\n"
            "| name | claim |\n|---|---|\n| A | 2× |\n\ntext\n\n| h | c |\n|---|---|\n| B | 3× |\n")
    listed = [h["text"] for h in entry_hedges(_entry("Needs verification", text), M)]
    assert listed == ["BlipRoute P99: blog only, no trace.", "KVPipe 3×", "A | 2×", "B | 3×"]
    fenced = "Plain line.\n\n```\n# 待核实 in a shell comment\n```\n\nFooServe 2×，待核实。\n"
    assert [h["text"] for h in entry_hedges(_entry("FooServe", fenced), M)] == ["FooServe 2×，待核实。"]
    in_item = "- FooServe 2×，待核实。\n  ```\n  # 待核实 in a shell comment\n  ```\n- BarServe 3×\n"
    assert [h["text"] for h in entry_hedges(_entry("FooServe", in_item), M)] == ["FooServe 2×，待核实。"]


def _view(subject: str, title: str, key: str, sources: tuple[str, ...], seen: bool = True) -> StatusAsOf:
    return StatusAsOf(key, "hedge", subject, title, f"claim of {key}", "待核实", sources, D1, D1, "pending", 0, None,
                      None, None, "", seen_in_window=seen, keys=(key,), kinds=("hedge",))


def test_one_item_per_subject_by_id_name_and_title() -> None:
    views = [_view("FooServe", "FooServe", "hedge:fooserve", ("a.md",)),
             _view(PAPER, "FooServe: Serving at Scale", f"hedge:{PAPER}", ("b.md",)),
             _view("FooServe 调度器", "FooServe 调度器", "hedge:fooserve 调度器", ("c.md",)),
             _view("BarKV", "BarKV", "hedge:barkv", ("d.md",))]
    merged = one_per_subject(views, M)
    assert [v.subject for v in merged] == [PAPER, "BarKV"]
    assert merged[0].sources == ("a.md", "b.md", "c.md") and merged[0].title == "FooServe: Serving at Scale"
    assert len(merged[0].keys) == 3


def _naive(views: list[StatusAsOf]) -> list[StatusAsOf]:
    """`one_per_subject` as its docstring says, comparing every pair."""
    out: list[StatusAsOf] = []
    members: list[list[StatusAsOf]] = []
    for view in views:
        at = next((k for k, kept in enumerate(out) if (kept.status in OPEN) == (view.status in OPEN)
                   and any(_same_as(m, view) for m in members[k])), None)
        if at is None:
            out.append(view)
            members.append([view])
        else:
            out[at] = merge_into(out[at], view)
            members[at].append(view)
    return out


def test_the_index_finds_what_comparing_every_pair_finds() -> None:
    rng = random.Random(7)
    names = ["FooServe", "FooServe 调度器", "FooServer", "BarKV", "BarKV cache 压缩", "QuuxCache P99 test conditions",
             "QuuxCache", "调度器 延迟", "延迟 调度器", PAPER, "2611.00120", f"FooServe（arXiv:{PAPER}）", "Zed",
             "2611.00130", "2611.00140", "KV cache offloading", "vLLM 分层 KV 卸载", "Tiered KV Cache Offloading in vLLM"]
    # Papers whose titles share words with each other and with the named subjects (a paper meets
    # other papers by its subject only), and subjects seen under more than one title.
    titles = {PAPER: ["FooServe: Serving at Scale"], "2611.00120": ["BarKV: Compressing KV", "BarKV: KV cache 压缩"],
              "2611.00130": ["KV Cache Offloading at Scale", "FooServe: Serving at Scale"],
              "2611.00140": ["BarKV Cache Serving"], "Zed": ["Zed", "QuuxCache"], "FooServer": ["FooServer", "BarKV"]}
    claims = ["吞吐 2.1×", "P99 低 40%", "no figure", "2.10x faster"]
    for _ in range(300):
        views = []
        for k in range(rng.randrange(0, 14)):
            subject = rng.choice(names)
            view = _view(subject, rng.choice(titles.get(subject, [subject])), f"hedge:{k}", (f"{k}.md",))
            views.append(dataclasses.replace(view, status=rng.choice(["pending", "stale", "resolved"]),
                                             claim=rng.choice(claims)))
        assert one_per_subject(views, M) == _naive(views)



# Words many subjects share ("router", "路由器", the coined names' first letters "Quqrs"), coined
# names a letter apart ("FooServe"/"FooServer": nearly the same string), one written in two cases,
# ids inside names, and titles with a coined name before a colon: the grouping must find what
# comparing every pair finds, however many items share a word.
_WORDS = ["router", "路由器", "Quqrsbcd", "Quqrsfgh", "Quqrsjkl", "FooServe", "FooServer", "vLLM", "vllm",
          "cache", "调度器", "throughput", "P99", f"（arXiv:{PAPER}）", "2.0"]
_NAME = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3).map(" ".join)
_SUBJECT = st.one_of(_NAME, st.sampled_from([PAPER, "2611.00120"]))
_VIEW = st.tuples(_SUBJECT, st.one_of(st.none(), _NAME, _NAME.map(lambda n: f"{n}: Serving at Scale")),
                  st.sampled_from(["吞吐 2.1×", "2.10x faster", "P99 低 40%", "no figure"]),
                  st.sampled_from(["pending", "stale", "resolved"]))


@hypothesis.settings(max_examples=300, deadline=None)
@given(st.lists(_VIEW, max_size=24))
def test_the_grouping_finds_what_comparing_every_pair_finds_among_shared_words(
        drawn: list[tuple[str, str | None, str, str]]) -> None:
    views = [dataclasses.replace(_view(subject, title or subject, f"hedge:{k}", (f"{k}.md",)), claim=claim, status=status)
             for k, (subject, title, claim, status) in enumerate(drawn)]
    assert one_per_subject(views, M) == _naive(views)


def test_the_grouping_does_not_depend_on_what_was_grouped_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The subjects compared are kept across calls (a year lists the same ones on every date): a
    list of views gets the same items first in a process, after other lists, and when the kept
    subjects start over at their bound."""
    rng = random.Random(11)
    lists = [[dataclasses.replace(_view(subject, subject, f"hedge:{k}", (f"{k}.md",)), status=rng.choice(["pending", "resolved"]))
              for k, subject in enumerate(rng.choices(_WORDS + [PAPER], k=rng.randrange(1, 16)))] for _ in range(40)]
    items._subjects.cache_clear()
    first = [one_per_subject(views, M) for views in lists]
    items._subjects.cache_clear()
    assert [one_per_subject(views, M) for views in reversed(lists)] == list(reversed(first))
    monkeypatch.setattr(items._Subjects, "LIMIT", 8)
    items._subjects.cache_clear()
    assert [one_per_subject(views, M) for views in lists] == first == [_naive(views) for views in lists]


def test_a_pathological_heading_and_claim_make_a_bounded_number_of_keys() -> None:
    heading = " ".join(f"Sys{k}Serve" for k in range(2000))
    claim = " ".join(f"{k}.5×" for k in range(2000))
    keys = _exact_keys(M, heading, heading, figures(claim))
    assert len(_named(M, heading, heading).coined) >= 2000 and len(figures(claim)) == 2000
    assert len([k for k in keys if k[0] == "cf"]) == MAX_COINED_FIGURES ** 2
    views = [dataclasses.replace(_view(heading, heading, f"hedge:{k}", (f"{k}.md",)), claim=claim) for k in range(3)]
    assert len(one_per_subject(views, M)) == 1

# --- through the stages --------------------------------------------------------------------------


def _doc(day: dt.date, anchored: bool) -> str:
    entry = f"- **BarKV**（arXiv:{ANCHORED}）：KV cache 压缩，推理吞吐提升。[anchored {day.isoformat()}]\n" if anchored else ""
    later = day + dt.timedelta(days=1)
    entry += f"- **QuuxCache 调度器**：推理 KV cache 调度器；P99 测试条件已核实（作者补了 8×H100 配置）。[anchored {later}]\n"
    return (f"# {TOPIC} · 知识活文档\n\nversion: v1 · updated: {day.isoformat()} 12:00 · citations: 10\n\n"
            "## §1 现状\n\n### §1.1 框架格局\n\n"
            "- **vLLM**（arXiv:2309.06180）：PagedAttention，开源 serving 事实标准。[anchored 2026-07-14]\n"
            + entry + "\n## References\n\n- arXiv:2401.08671 — DeepSpeed-FastGen（cited 2026-07-14）\n")


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _workspace(root: Path, echo_title: str = "") -> None:
    d1, d2, d3 = D1, D1 + dt.timedelta(days=1), D1 + dt.timedelta(days=2)
    _write(root, "organized/knowledge/inference.md", _doc(d2, anchored=True))
    # Day 1: one question, three notes, two languages; an old item nobody mentions again.
    _write(root, f"inbox/jay/{d1}T1000-jay-inference-serving.md",
           f"# 推理 serving 笔记\n\n## 条目1 · FooServe: Serving at Scale（arXiv:{PAPER}）\n\n"
           "- KV cache 调度器，vLLM 上吞吐 2.1×（单卡 A100）。\n"
           "- ⚠️ T1 待核实 · FooServe 的 2.1× 只在单卡上测过，多卡 serving 没有数据。\n"
           "- 直接引用可能高估多卡推理收益。\n- 建议：等作者的多卡 benchmark 再引用。\n\n"
           "## 条目2 · QuuxCache 调度器\n\n- 推理 KV cache 调度器，P99 延迟很低。\n"
           "- **存疑**：P99 没有给测试条件。\n\n"
           "## ⚠️ 待核实\n\n- 待核实\n\n## 五、摘要\n\n- 今天还有几条待核实。\n\n"
           "## Needs verification\n\n- `kv_cache_dtype`：待核实\n")
    _write(root, f"inbox/lena/{d1}T1400-lena-inference-reading.md",
           "# Inference reading\n\n## FooServe serving scheduler\n\n"
           "- FooServe reports 2.1x decode throughput for LLM serving on a single A100.\n"
           "- Needs verification: FooServe's 2.1x was only measured on one GPU. It might not hold on a multi-GPU "
           "serving cluster. We should rerun it on 8×H100.\n\n"
           "## Open questions\n\n- TODO verify QuuxCache P99 test conditions: the post gives no batch size "
           "for its KV cache serving benchmark.\n\n"
           "## Needs verification\n\n- BlipRoute P99 serving latency: blog only, no setup given.\n")
    _write(root, f"inbox/spark/{d1}T1600-spark-inference-e1prep.md",
           f"# Spark inference prep\n\n## Open questions\n\n"
           f"- TODO verify: FooServe (arXiv:{PAPER}) multi-GPU serving throughput; the paper only reports one A100.\n"
           "- QuuxCache 的推理 P99 数字待核实（没有 batch size）。\n\n"
           "## 未解决\n\n- BlipRoute 推理路由的 P99 延迟只有博客数字，没有测试配置。\n")
    # Day 3: an echo of an earlier briefing restating items the doc anchored since (BarKV) and one
    # a later note of the window settles (BazRoute); plus a new hedge of the day.
    _write(root, f"inbox/tom/{d3}-0900-inference-e1prep.md",
           f"{echo_title}inference · E1 预消化简报({d2})\n\n三、值得警惕的矛盾或待核实说法\n"
           f"⚠️ T1 待核实 · BarKV（arXiv:{ANCHORED}）KV cache 压缩的推理吞吐只有摘要级数字。\n"
           "⚠️ T2 待核实 · BazRoute 推理路由器的 serving 延迟数字没有测试条件。\n"
           "⚠️ T3 待核实 · GorpQ 推理量化 kernel 的 decode 延迟数字只有博客来源。\n")
    _write(root, f"inbox/jay/{d2}T1100-jay-inference-gorpq.md",
           "# 推理 kernel\n\n## 条目1 · GorpQ 推理量化 kernel\n\n"
           "- GorpQ 的 decode 延迟数字已核实：作者仓库 benchmark 与博客一致。\n")
    _write(root, f"inbox/jay/{d3}T1500-jay-inference-followup.md",
           "# 推理跟进\n\n## 条目1 · BazRoute 推理路由器\n\n- BazRoute 的 serving 延迟数字已核实：作者仓库的 benchmark 表与博客一致。\n\n"
           "## 条目2 · ZedAttn kernel\n\n- 推理 attention kernel，decode 吞吐 1.4×。\n"
           "- 待核实：1.4× 只在 H100 上测过。\n\n"
           f"## 条目3 · BarKV（arXiv:{ANCHORED}）\n\n- KV cache 压缩，推理 serving 吞吐提升；昨天已锚入 inference.md。\n")


@pytest.fixture
def briefs(clean_db: Engine, settings: Settings, tmp_path: Path) -> dict[dt.date, tuple[str, dict[str, Any]]]:
    return _briefs(settings, tmp_path)


def _briefs(settings: Settings, tmp_path: Path, echo_title: str = "") -> dict[dt.date, tuple[str, dict[str, Any]]]:
    _workspace(tmp_path, echo_title)
    ref = ingest_all(settings, tmp_path)
    (topic,) = topics_for(settings, tmp_path, [TOPIC])
    out = {}
    for day in (D1, D1 + dt.timedelta(days=2)):
        window = window_of(topic, day)
        derive_verifications(settings, ref, topic, window.date)
        md, js = render_briefing(settings, ref, topic, window)
        out[day] = (md, json.loads(js))
    return out


def _section3(md: str) -> str:
    return md.split("## 三、", 1)[1].split("\n## ", 1)[0]


def test_one_question_in_three_notes_is_one_item(briefs: dict[dt.date, tuple[str, dict[str, Any]]]) -> None:
    _, brief = briefs[D1]
    items = [v for v in brief["verifications"] if "fooserve" in (v["title"] + v["subject"]).lower()
             or v["subject"] == PAPER]
    assert len(items) == 1, [(v["subject"], v["sources"]) for v in brief["verifications"]]
    (item,) = items
    assert item["subject"] == PAPER and len(item["sources"]) == 3
    assert "T1" not in item["claim"] and "⚠️" not in item["claim"] and "待核实" not in item["claim"][:6]
    assert item["risk"] and item["advice"]  # the zh note gives both
    # A question about a system with no id, asked in three notes (zh, en, under a generic heading).
    (quux,) = [v for v in brief["verifications"] if "quuxcache" in v["subject"].lower()]
    assert len(quux["sources"]) == 3, quux
    # Items under a hedging heading ("Needs verification", "未解决") are each about their own subject.
    (blip,) = [v for v in brief["verifications"] if "bliproute" in v["subject"].lower()]
    assert len(blip["sources"]) == 2 and blip["title"].startswith("BlipRoute"), blip


def test_no_item_is_named_by_a_marker_heading_or_config_key(briefs: dict[dt.date, tuple[str, dict[str, Any]]]) -> None:
    for md, brief in briefs.values():
        for v in brief["verifications"]:
            assert not N.names_nothing(v["title"]), v
            assert v["subject"][:1].isdigit() or not N.names_nothing(v["subject"]), v
            assert strip_labels(M, v["title"]) == v["title"].strip(), v
        heads = re.findall(r"^### .*$", _section3(md), re.M)
        assert not any(h.endswith(("待核实", "摘要", "Needs verification", "kv_cache_dtype")) for h in heads), heads
    subjects = {v["subject"] for v in briefs[D1][1]["verifications"]}
    assert any("QuuxCache" in s for s in subjects)  # a real hedge next to the marker headings is kept


def test_an_echo_does_not_raise_what_was_settled(briefs: dict[dt.date, tuple[str, dict[str, Any]]]) -> None:
    _assert_echo_raises_nothing_settled(briefs[D1 + dt.timedelta(days=2)][1])


def test_an_echo_titled_in_markdown_is_an_echo_too(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    # "# inference · E1 预消化简报(…)": the marker is in the note's title alone, which no entry holds.
    _assert_echo_raises_nothing_settled(_briefs(settings, tmp_path, echo_title="# ")[D1 + dt.timedelta(days=2)][1])


def _assert_echo_raises_nothing_settled(brief: dict[str, Any]) -> None:
    subjects = {v["subject"] for v in brief["verifications"]}
    titles = " ".join(v["title"] for v in brief["verifications"])
    assert ANCHORED not in subjects  # the doc anchored BarKV before the echo restated it
    assert "BazRoute" not in titles  # a note of the same window settles it
    assert "GorpQ" not in titles  # a note of an earlier window settled it
    assert any("ZedAttn" in v["title"] and v["seen_in_window"] for v in brief["verifications"])


def test_earlier_items_come_last_apart_and_uncounted(briefs: dict[dt.date, tuple[str, dict[str, Any]]]) -> None:
    md, brief = briefs[D1 + dt.timedelta(days=2)]
    window, earlier = brief["verifications"], brief["earlier_verifications"]
    assert window and earlier
    assert all(v["seen_in_window"] for v in window) and not any(v["seen_in_window"] for v in earlier)
    section = _section3(md)
    assert LABELS["zh"]["s3"].format(n=len(window)) in md.split("\n")  # it counts what this window's sources say
    full = re.findall(r"^### \S+ T(\d+) ", section, re.M)
    compact = re.findall(r"^- \S+ 此前 · ", section, re.M)
    assert [int(i) for i in full] == list(range(1, len(window) + 1))  # markdown and JSON carry the same set
    assert len(compact) == len(earlier)
    assert section.index("此前 · ") > max(section.index(f"T{i} ") for i in full)  # after the window's items
    assert any(v["subject"] == PAPER and v["age_days"] == 2 for v in earlier)
    assert all(v["status"] != "resolved" for v in earlier)


def test_the_knowledge_document_settles_an_item(briefs: dict[dt.date, tuple[str, dict[str, Any]]]) -> None:
    quux = [v for v in briefs[D1][1]["verifications"] if "QuuxCache" in v["subject"]]
    assert [v["status"] for v in quux] == ["pending"]  # the doc's entry is dated later
    (done,) = [v for v in briefs[D1 + dt.timedelta(days=2)][1]["verifications"] if "QuuxCache" in v["subject"]]
    assert done["status"] == "resolved" and done["resolved_by"] == "organized/knowledge/inference.md"
    assert "已核实" in done["evidence"]


def test_what_names_nothing_follows_the_runs_markers() -> None:
    base = default_judgment()
    words = [*base.words("markers", "generic_title_regex"), r"Ausblick\b"]
    override = names_of(make_judgment(merge(base.config, {"markers": {"generic_title_regex": words}})))
    assert not N.names_nothing("Ausblick")
    assert override.names_nothing("Ausblick") and not override.names_nothing("FooServe")
