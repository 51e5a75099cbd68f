"""Contract of 现象/风险/建议 (tasks.verify.passage.hedge_parts) on notes the test writes itself, in
Chinese, English and mixed, as list items, wrapped lines, labelled lines, prose and table rows:

- every part is whole sentences of the source, in its order: each sentence of a part is found in
  the source (whitespace and markup aside), so nothing is stitched from pieces of different lines
  with a "；"/"; " the source did not write;
- no token is cut: "TL;DR", a URL, a version, a decimal stay whole;
- a sentence that advises an action ("先不要…", "不引用", "跟踪…", "needs a re-check", "do not cite
  until…", "wait for…") is 建议, one that warns what could go wrong is 风险, whatever the phrasing of
  the generated pool; the hedged claim is 现象; a part the source does not give stays empty;
- a long part is cut at a sentence end and marked "…".
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.common.sentences import sentences
from tasks.config.judgment import default_judgment
from tasks.inbox.claims import hedges, note_hedges
from tasks.verify.markers import markers_of
from tasks.verify.passage import PART, hedge_parts

M = markers_of(default_judgment())

NAMES = ["FooServe", "BarKV", "QuuxAttention", "ZetaCache"]
CLAIM = {
    "zh": ["{x} 在 H100 上吞吐 2.1×（见 v0.6.3 的 TL;DR），待核实。", "{x} 说延迟降到 3.5 ms，这个数字存疑。"],
    "en": ["{x} reports 2.1× throughput on H100 per the card's TL;DR, unverified.",
           "Needs verification: {x} v0.6.3 cuts latency to 3.5 ms (see https://example.org/a.b?c=1;d=2)."],
}
ADVICE = {
    "zh": ["先不要把 {x} 的数字当成已发生的事实写进文档。", "在找到官方 benchmark 之前不引用这组数字。",
           "跟踪 {x} 官方仓库的 release notes。", "等作者放出多卡数据再决定。", "我先去翻 {x} 的 GitHub 看原始数据。"],
    "en": ["{x}'s number needs a re-check on our own cluster.", "Do not cite it until the authors publish code.",
           "Wait for the official benchmark before quoting it.", "I'll check the {x} GitHub for raw logs.",
           "Track the upstream issue for a fix."],
}
RISK = {
    "zh": ["直接引用可能高估多卡收益。", "对照组的口径不一致，两组数字不可比。", "单卡结果未必能代表生产流量。"],
    "en": ["The gain might not hold under production traffic.", "A misconfigured baseline would overstate the speedup.",
           "The comparison is apples to oranges, so the result is misleading."],
}


def _squash(text: str) -> str:
    return "".join(text.replace("**", "").replace("`", "").split())


def _assert_whole_sentences(part: str, source: str) -> None:
    for sentence in sentences(part.removesuffix("…")):
        assert _squash(sentence) in _squash(source), (sentence, source)


@st.composite
def note(draw: st.DrawFn) -> tuple[str, str, str, list[str], list[str]]:
    """(entry text, hedged text, subject, advice sentences, risk sentences) of one generated entry."""
    lang = draw(st.sampled_from(["zh", "en", "mixed"]))
    x = draw(st.sampled_from(NAMES))
    pick = (lambda pool: draw(st.sampled_from(pool["zh"] + pool["en"]))) if lang == "mixed" else (
        lambda pool: draw(st.sampled_from(pool[lang])))
    claim = pick(CLAIM).format(x=x)
    advice = [pick(ADVICE).format(x=x) for _ in range(draw(st.integers(0, 2)))]
    risk = [pick(RISK).format(x=x) for _ in range(draw(st.integers(0, 2)))]
    advice, risk = list(dict.fromkeys(advice)), list(dict.fromkeys(risk))
    style = draw(st.sampled_from(["items", "one_item", "wrapped", "prose"]))
    rest = risk + advice
    if style == "items":
        body = "\n".join(f"- {s}" for s in [claim, *rest])
    elif style == "one_item":
        body = "- " + " ".join([claim, *rest])
    elif style == "wrapped":  # the hedged item wraps inside its sentence; each other sentence is an item
        cut = claim.rindex(" ")  # every claim has a space after its marker words
        body = f"- {claim[:cut]}\n  {claim[cut:].lstrip()}" + "".join(f"\n- {s}" for s in rest)
    else:
        body = " ".join([claim, *rest])
    text = f"## {x}\n\n{body}\n\n## Other\n\n- 无关的条目。\n"
    rows = text.split("\n")
    found = hedges(text, rows, [False] * len(rows), note_hedges())  # the hedged text as the note parser gives it
    return text, found[0]["text"], x, advice, risk


@settings(max_examples=150, deadline=None)
@given(note())
def test_parts_are_the_sources_whole_sentences(case: tuple[str, str, str, list[str], list[str]]) -> None:
    text, hedged, x, advice, risk = case
    parts = hedge_parts(M, text, hedged, (x,))
    for part in (parts.phenomenon, parts.risk, parts.advice):
        _assert_whole_sentences(part, text)
        assert "无关" not in part
    claim = next(c.format(x=x) for c in CLAIM["zh"] + CLAIM["en"] if _squash(c.format(x=x)) in _squash(text))
    for token in ("TL;DR", "v0.6.3", "3.5 ms", "https://example.org/a.b?c=1;d=2"):
        if token in claim:
            assert token in parts.phenomenon
    assert parts.advice == " ".join(advice) or parts.advice == "".join(advice) or _squash(parts.advice) == _squash(
        "".join(advice))
    assert _squash(parts.risk) == _squash("".join(risk))
    assert parts.phenomenon  # the hedged claim


def test_a_wrapped_sentence_is_one_sentence_and_nothing_is_stitched() -> None:
    text = ("## SpecScale\n\n- Needs verification: SpecScale (arXiv:2609.39334) compares against EAGLE-3 and\n"
            "  DFlash2. I have not read the paper.\n- The computable form of the two criteria is open.\n")
    parts = hedge_parts(M, text, "Needs verification: SpecScale (arXiv:2609.39334) compares against EAGLE-3 and",
                        ("SpecScale",))
    assert parts.phenomenon.startswith("SpecScale (arXiv:2609.39334) compares against EAGLE-3 and DFlash2. I have")
    assert ".;" not in parts.phenomenon and "; " not in parts.phenomenon
    zh = "## FooServe\n\n- FooServe 的 2.1× 只在单卡上测过，\n  多卡没有数据，待核实。\n- 在找到官方 benchmark 之前不引用。\n"
    parts = hedge_parts(M, zh, "FooServe 的 2.1× 只在单卡上测过，", ("FooServe",))
    assert parts.phenomenon == "FooServe 的 2.1× 只在单卡上测过，多卡没有数据"  # the note's trailing label stripped
    assert parts.advice == "在找到官方 benchmark 之前不引用。"


def test_a_hedge_on_the_second_line_of_a_wrapped_sentence() -> None:
    para = "## FooServe\n\nThe card TL;DR gives no benchmark numbers and\nthe repo has no scripts, unverified. Next we rerun it.\n"
    rows = para.split("\n")
    parts = hedge_parts(M, para, hedges(para, rows, [False] * len(rows), note_hedges())[0]["text"], ("FooServe",))
    assert parts.phenomenon.startswith("The card TL;DR gives no benchmark numbers and the repo has no scripts")
    assert parts.advice == "Next we rerun it."  # the rest of the line, an action


def test_labelled_lines_and_table_rows() -> None:
    text = ("## BarKV\n\n- 待核实：BarKV 的命中率 92%（TL;DR 里没有基线）。\n- 风险：命中率口径可能不同。\n"
            "- 建议：先不要写进 inference.md。\n")
    parts = hedge_parts(M, text, "待核实：BarKV 的命中率 92%（TL;DR 里没有基线）。", ("BarKV",))
    assert (parts.phenomenon, parts.risk, parts.advice) == (
        "BarKV 的命中率 92%（TL;DR 里没有基线）。", "命中率口径可能不同。", "先不要写进 inference.md。")
    row = "| 3 | BarKV | 92% hit rate, unverified. Do not cite until the authors share the trace. |"
    parts = hedge_parts(M, row, row)
    assert parts.advice == "Do not cite until the authors share the trace."
    assert "92% hit rate" in parts.phenomenon and "Do not cite" not in parts.phenomenon


def test_nothing_invented_and_long_parts_cut_at_a_sentence_end() -> None:
    bare = hedge_parts(M, "- 待核实：ZetaCache 的 P99 3 ms。\n", "待核实：ZetaCache 的 P99 3 ms。", ("ZetaCache",))
    assert bare.risk == "" and bare.advice == ""
    many = " ".join(f"Step {k}: we should rerun trace {k} on the cluster." for k in range(12))
    text = f"- ZetaCache's 3 ms P99 is unverified. {many}\n"
    parts = hedge_parts(M, text, text.strip("- \n"), ("ZetaCache",))
    assert len(parts.advice) <= PART and parts.advice.endswith("cluster.…")
    _assert_whole_sentences(parts.advice, text)
