"""Contract of the pure pieces of verification: names, numbers, promises, markers and the lifecycle rules."""

from __future__ import annotations

import datetime as dt

import pytest

from tasks.config.judgment import default_judgment
from tasks.verify.markers import all_found, label_refs, markers_of, recommends_e1
from tasks.verify.names import lead_phrase, names_of
from tasks.verify.promises import find_promises
from tasks.verify.readings import Reading, conflicts, interval
from tasks.verify.status import Event, Observation, Tracked, listed, merge, status_as_of

M = markers_of(default_judgment())
N = names_of(default_judgment())

D = dt.date


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [
    ("Acadify H100 benchmark", "Acadify：H100 推理引擎 benchmark（1024 并发）"),
    ("FlashMLA", "DeepSeek FlashMLA"),
    ("QuokkaServe 调度器", "QuokkaServe 调度器（复测）"),
    ("vllm-project/production-stack", "vLLM Production Stack 2026 GA + V1 Model Runner V2 重构"),
    ("SGLang v0.5.40", "SGLang 0.5.40"),  # the same release, with or without its "v"
    ("FooServe", "FooServe v2.1"),  # a name without a version may mean any of them
])
def test_names_that_match(a: str, b: str) -> None:
    assert N.names_match(a, b) and N.names_match(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("vLLM v0.30 + 官方博客三篇", "vLLM Production Stack 2026 GA"),
    ("benchmark", "Acadify H100 benchmark"),  # a common word alone names nothing
    ("腾讯云：vLLM + SGLang 高并发 Serving 实践", "vLLM vs SGLang on H100：基本持平"),
    # two versions are two releases, and a release is not every named part of the system
    ("SGLang v0.5.31", "SGLang v0.5.40"), ("TensorRT-LLM v1.3", "TensorRT-LLM v1.2"),
    ("SGLang 0.5.13", "复现：SGLang overlap scheduler 开关"),
])
def test_names_that_do_not_match(a: str, b: str) -> None:
    assert not N.names_match(a, b)


def test_lead_phrase_short_name_and_mentions() -> None:
    assert lead_phrase("FlashMLA「H800 ~3000 GB/s」：对照官方 repo 核验") == "FlashMLA"
    assert lead_phrase("#1 Acadify benchmark | — | 数据环境存疑") == "Acadify benchmark"
    assert lead_phrase("+ FooPrefix（arXiv:2611.00041）：共享前缀") == "FooPrefix"  # a "+" list marker
    assert lead_phrase("FlashDecoding++ (arXiv:2311.01282): faster decode") == "FlashDecoding++"
    assert N.short_name("SEIS: Self-Evolving Inference Systems") == "SEIS"
    assert N.short_name("Dynamic LLM Routers are Often Misguided") is None
    assert N.mentions_name("K8s 上 vLLM Production Stack 里的 agentic 部署", "vLLM Production Stack 2026 GA")
    assert not N.mentions_name("TPU 后端（和 TorchTPU 路线并行）", "TPU Inference Externalization：TorchTPU")
    assert N.is_generic("本轮总结") and N.is_generic("给 Tom / E1") and not N.is_generic("Acadify：H100")


# --- markers -------------------------------------------------------------------------------------


def test_settling_words_are_not_read_when_negated() -> None:
    assert all_found(M, M.settle, "带宽数字已核实：与官方一致")
    assert not all_found(M, M.settle, "这个数字尚未核实") and not all_found(M, M.settle, "still unverified, not verified")


def test_e1_recommendations_and_entry_references() -> None:
    assert recommends_e1(M, "**建议进 E1**：条目#1 + #2 + #3 合成一条「X」工程新增")
    assert recommends_e1(M, "| #6 TPU Externalization | — | E1 工程新增 |")
    assert recommends_e1(M, "| #3 GoodServe | inference | 是 |", ["条目", "归属", "进 inference E1？"])
    assert not recommends_e1(M, "和 Oct 6 E1 的 vLLM v0.30 是承接关系")
    assert not recommends_e1(M, "| #2 MCP | agents | 否 |", ["条目", "归属", "进 inference E1？"])
    assert label_refs(M, "条目#1 + #2 + #3 + #4 合成一条") == ["1", "2", "3", "4"]


# --- numbers -------------------------------------------------------------------------------------


def test_intervals() -> None:
    assert interval("2.81–3.10×") == pytest.approx((2.81 * 0.95, 3.10 * 1.05))
    assert interval("<2%") == (0.0, 2.0)
    assert interval("1000+ TPS")[1] == float("inf")  # type: ignore[index]
    assert interval("~3×") == pytest.approx((2.7, 3.3))
    assert interval("1,610") == pytest.approx((1610 * 0.95, 1610 * 1.05))


def _reading(value: str, context: str, path: str, subject: str = "2611.00030") -> Reading:
    return Reading(subject, value, value[-1] if value[-1] in "%×" else "ms", context, path, True, M)


def test_disagreeing_numbers_conflict_and_quoted_pairs_do_not() -> None:
    a = [_reading("29%", "SGLang 吞吐比 vLLM 高 29%", "a.md")]
    b = [_reading("1–4%", "SGLang 与 vLLM 吞吐差距只有 1–4%", "b.md")]
    assert conflicts(a, b) == [(a[0], b[0])]
    pair_a = [_reading("31ms", "READ P99 31ms vs WRITE 190ms", "a.md"), _reading("190ms", "READ P99 31ms vs WRITE 190ms", "a.md")]
    pair_b = [_reading("31ms", "P99 延迟 31ms vs WRITE 190ms", "b.md"), _reading("190ms", "P99 延迟 31ms vs WRITE 190ms", "b.md")]
    assert conflicts(pair_a, pair_b) == []
    other_metric = [_reading("40%", "EP 通信 −40%", "b.md")]
    assert conflicts([_reading("35%", "显存 −35%", "a.md")], other_metric) == []


# --- promises ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "due"), [
    ("计划 2026-09 开源", D(2026, 9, 30)),
    ("private beta 已结束；计划在 2026 年 10 月 PyTorch Conference 开源。", D(2026, 10, 31)),
    ("The release is planned for Q3 2026.", D(2026, 9, 30)),
    ("Weights are expected in March 2027 (open-source).", D(2027, 3, 31)),
    ("作者说预计 2026-11-05 发布", D(2026, 11, 5)),
    ("v1 (for inference serving) is expected to be released by Oct 20, 2026.", D(2026, 10, 20)),
    ("The team plans to open-source it on 20 October 2026.", D(2026, 10, 20)),
])
def test_promises(text: str, due: dt.date) -> None:
    (promise,) = find_promises(M, text)
    assert promise.due == due


def test_dates_without_a_promise_are_not_promises() -> None:
    assert find_promises(M, "来源：Acadify 技术博客（2026-10-05）") == []
    assert find_promises(M, "FP8 KV-cache 2026 Q4 可以当默认选项考虑") == []


# --- lifecycle -----------------------------------------------------------------------------------


def _tracked(*events: Event, key: str = "hedge:x") -> Tracked:
    return Tracked(key, "hedge", "x", events)


def test_status_as_of_uses_only_events_up_to_the_day() -> None:
    item = _tracked(Event(D(2026, 11, 1), "raised", "a.md", '{"text": "claim", "marker": "待核实"}'),
                    Event(D(2026, 11, 4), "seen", "b.md"),
                    Event(D(2026, 11, 10), "resolved", "c.md", '{"text": "已核实"}'))
    assert status_as_of(item, D(2026, 10, 31), 7) is None
    first = status_as_of(item, D(2026, 11, 1), 7)
    assert first is not None and first.status == "pending" and first.sources == ("a.md",) and first.claim == "claim"
    assert status_as_of(item, D(2026, 11, 7), 7).status == "pending"  # type: ignore[union-attr]
    eighth = status_as_of(item, D(2026, 11, 8), 7)
    assert eighth is not None and eighth.status == "stale" and eighth.age_days == 7
    assert eighth.last_seen == D(2026, 11, 4) and eighth.sources == ("a.md", "b.md")
    done = status_as_of(item, D(2026, 11, 12), 7)
    assert done is not None and done.status == "resolved" and done.evidence == "已核实" and done.resolved_on == D(2026, 11, 10)


def test_merge_adds_this_windows_observations_once_and_listing_puts_the_window_first() -> None:
    stored = _tracked(Event(D(2026, 11, 1), "raised", "a.md"))
    obs = [Observation("hedge:x", "hedge", "x", "raised", "a.md", D(2026, 11, 1), {}),
           Observation("hedge:y", "hedge", "y", "raised", "b.md", D(2026, 11, 9), {}),
           Observation("hedge:z", "hedge", "z", "resolved", "c.md", D(2026, 11, 9), {})]
    merged = merge([stored, _tracked(Event(D(2026, 11, 2), "raised", "c.md"), key="hedge:z")], obs)
    assert [len(t.events) for t in merged] == [1, 1, 2]
    views = listed(merged, D(2026, 11, 9), 7)
    # What this window raised, then what it resolved, then earlier items it did not mention.
    assert [(v.key, v.status, v.seen_in_window) for v in views] == [
        ("hedge:y", "pending", True), ("hedge:z", "resolved", True), ("hedge:x", "stale", False)]


def test_numbers_under_different_conditions_do_not_conflict() -> None:
    # Three engines on independent requests, two engines after a weight change: two measurements.
    three = [_reading("3%", "50 并发独立请求：SGLang 吞吐领先 vLLM 3%", "a.md")]
    three_line = "- vLLM vs LMDeploy vs SGLang 三个引擎，H100，50 并发独立请求：SGLang 吞吐领先 vLLM 3%。"
    three = [Reading(r.subject, r.value, r.unit, r.context, r.path, True, M, three_line) for r in three]
    two = [Reading("2611.00030", "29%", "%", "SGLang 吞吐领先 vLLM 29%", "b.md", True, M,
                   "- 换成 FP8 权重后只比 SGLang 和 vLLM 两个引擎：SGLang 吞吐领先 vLLM 29%。")]
    assert conflicts(three, two) == []
    again = [Reading("2611.00030", "29%", "%", "SGLang 吞吐领先 vLLM 29%", "b.md", True, M, three_line)]
    assert conflicts(three, again) == [(three[0], again[0])]
