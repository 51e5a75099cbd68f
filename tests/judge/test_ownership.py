"""Contract of ownership by evidence (tasks.judge.evidence, tasks.judge.own_text).

- A paper's own text in a digest entry is the block that names it: vocabulary of neighbouring
  lines or rows never counts (property: adding any inference-heavy neighbour line changes nothing).
- A card's primary category outweighs vocabulary; a card or queue row declaring the topic
  secondary makes the paper NET-new (主分类邻接), unless the primary topic has anchored it: then,
  with no source speaking for this topic, it is 🟡 adjacent.
- A source that registers a paper as adjacent holds it back (🟡) unless something declares it the
  topic's.
- A note's file name says which topic it is written for; "已在 X.md 锚定" in it is a taken statement.
- Decisions do not depend on the order of the mentions.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tasks.config.settings import Settings
from tasks.config.topics import resolve_topic
from tasks.inbox.outline_reader import stored_outline
from tasks.judge.evidence import judge_ownership
from tasks.judge.relevance import Verdict
from tasks.model.window_views import CardView, EntryView, MentionView, WindowData
from tasks.model.windows import window_for
from tests.helpers import NO_WORKSPACE

TOPIC = resolve_topic("inference", Settings(), NO_WORKSPACE)
NOW = dt.datetime(2026, 10, 9, 12, tzinfo=dt.UTC)
INFERENCE_WORDS = list(TOPIC.terms)


def _data(cards: dict[str, list[CardView]] | None = None,
          queue: dict[str, list[tuple[str | None, str | None]]] | None = None) -> WindowData:
    data = WindowData(window_for(dt.date(2026, 10, 9), TOPIC.schedule, TOPIC.timezone))
    data.cards = cards or {}
    data.queue_categories = queue or {}
    return data


def _note(path: str, heading: str, text: str, ids: tuple[str, ...], title: str | None = "t"
          ) -> tuple[list[MentionView], dict[tuple[int, int], EntryView]]:
    entry = EntryView(1, path, "note", 0, None, heading, title, text, (), ids=ids, outline=stored_outline(text))
    mentions = [MentionView(1, path, "note", 0, None, heading, title, i, i, False, f"{heading}\n{text}", NOW)
                for i in ids]
    return mentions, {(1, 0): entry}


def _verdict(arxiv_id: str, mentions: list[MentionView], entries: dict[tuple[int, int], EntryView],
             data: WindowData | None = None) -> Verdict:
    return judge_ownership(arxiv_id, [m for m in mentions if m.arxiv_id == arxiv_id], entries, data or _data(),
                           TOPIC).verdict


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(INFERENCE_WORDS), min_size=1, max_size=8), st.sampled_from(["agents", "rag", ""]))
def test_neighbouring_lines_are_not_evidence(words: list[str], label: str) -> None:
    own = f"- arXiv:2610.20001 · ToolNet: planning with typed tools · {label}"
    neighbour = "- arXiv:2610.20002 · " + " ".join(words) + " engine"
    mentions, entries = _note("inbox/tom/2026-10-09-1300-hf-radar.md", "Today's list", f"{own}\n{neighbour}",
                              ("2610.20001", "2610.20002"))
    assert _verdict("2610.20001", mentions, entries) is Verdict.NONE


def test_one_vocabulary_word_in_a_digest_line_owns_nothing() -> None:
    mentions, entries = _note("inbox/tom/radar.md", "list", "- arXiv:2610.20001 · Paper about latency\n"
                              "- arXiv:2610.20003 · Another", ("2610.20001", "2610.20003"))
    assert _verdict("2610.20001", mentions, entries) is Verdict.NONE


def test_own_entry_with_the_topics_vocabulary_is_net_new() -> None:
    mentions, entries = _note("inbox/jay/2026-10-09-jay-deep-dive.md", "条目4 · SpecScale（arXiv:2609.39334）",
                              "- speculative decoding in a serving framework with continuous batching on GPU",
                              ("2609.39334",))
    assert _verdict("2609.39334", mentions, entries) is Verdict.RELEVANT


def _card(primary: str, secondary: tuple[str, ...]) -> dict[str, list[CardView]]:
    return {"2610.30001": [CardView("2610.30001", "organized/paper_cards/1.md", "X", primary, secondary, None, None)]}


def test_card_primary_outweighs_inference_prose() -> None:
    mentions, entries = _note("inbox/jay/2026-10-09-jay-inference-notes.md", "条目1 · X（arXiv:2610.30001）",
                              "- vLLM serving, KV cache, prefill, decode, TTFT, throughput on H100", ("2610.30001",))
    assert _verdict("2610.30001", mentions, entries, _data(_card("llm-infra", ("storage",)))) is Verdict.NONE
    assert _verdict("2610.30001", mentions, entries, _data(_card("llm-infra", ("inference",)))) is Verdict.RELEVANT


def test_secondary_of_a_paper_anchored_by_its_primary_topic_is_adjacent_not_net_new() -> None:
    mentions, entries = _note("inbox/nina/2026-10-09-nina-evaluation-e1prep.md", "增量 1 · X（arXiv:2610.30001）",
                              "- 已在 evaluation.md 锚定", ("2610.30001",))
    data = _data(queue={"2610.30001": [("evaluation", "inference")]})
    held = judge_ownership("2610.30001", mentions, entries, data, TOPIC)
    assert held.verdict is Verdict.ADJACENT and held.reason[0].key == "held_elsewhere"
    free = _data(queue={"2610.30001": [("evaluation", "inference")]})
    assert judge_ownership("2610.30001", [], {}, free, TOPIC).verdict is Verdict.RELEVANT


def test_adjacency_statement_holds_the_paper_back() -> None:
    mentions, entries = _note("inbox/tom/hf-daily.md", "条目1 · Q（arXiv:2609.38169）",
                              "- 和 inference 的关系：NVFP4 推理引擎行为不一致；先作为邻接条目登记", ("2609.38169",))
    assert _verdict("2609.38169", mentions, entries) is Verdict.ADJACENT


def test_a_list_heading_speaks_for_its_items() -> None:
    mentions, entries = _note("inbox/spark/2026-10-09-llm-infra-e1prep.md", "增量 5 · 训练侧（不进 inference）",
                              "- arXiv:2610.10311 MoE training throughput +18%, vLLM decode\n- arXiv:2610.10764 FP4",
                              ("2610.10311", "2610.10764"))
    ownership = judge_ownership("2610.10311", mentions[:1], entries, _data(), TOPIC)
    assert ownership.verdict is Verdict.NONE and any(e.kind == "exclusion" and e.topic == "inference"
                                                     for e in ownership.evidence)


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(3)))
def test_order_of_mentions_does_not_matter(order: list[int]) -> None:
    notes = [_note(f"inbox/a/n{k}.md", "条目 · P（arXiv:2610.30001）", body, ("2610.30001",))
             for k, body in enumerate(["- 归属 rag", "- vLLM serving KV cache", "- 转 inference 线"])]
    mentions = [notes[k][0][0] for k in order]
    entries = {(1, 0): notes[0][1][(1, 0)]}
    verdicts = judge_ownership("2610.30001", mentions, entries, _data(_card("rag", ("inference",))), TOPIC)
    reference = judge_ownership("2610.30001", [notes[k][0][0] for k in range(3)], entries,
                                _data(_card("rag", ("inference",))), TOPIC)
    assert (verdicts.verdict, verdicts.owner, verdicts.scores) == (reference.verdict, reference.owner, reference.scores)


def test_note_topic_comes_from_the_file_name(tmp_path: Path) -> None:
    from tasks.judge.own_text import note_topics

    j = TOPIC.judgment
    assert note_topics("inbox/x/2026-10-09-evaluation-e1prep.md", j, j.topics) == (("evaluation", "note_for_topic"),)
    assert note_topics("inbox/spark/2026-10-09-llm-infra-e1prep.md", j, j.topics) == (("llm-infra", "note_for_topic"),)
    assert note_topics("inbox/tom/2026-10-12-tom-oct12-eval-e1.md", j, j.topics) == (("evaluation", "note_for_topic"),)
    assert set(note_topics("inbox/jay/2026-10-07-0820-jay-csdn-inference-rag.md", j, j.topics)) == {
        ("inference", "note_names_topic"), ("rag", "note_names_topic")}


def test_bare_anchored_in_a_prep_note_means_that_topic_took_it() -> None:
    mentions, entries = _note("inbox/nina/2026-10-09-nina-rag-e1prep.md", "增量 2 · Y（arXiv:2610.30001）",
                              "- KV cache serving latency; 已锚", ("2610.30001",))
    data = _data(_card("agents", ("inference",)))
    ownership = judge_ownership("2610.30001", mentions, entries, data, TOPIC)
    # rag's own prep note anchored it: inference's secondary alone leaves it undecided (🟡).
    assert ownership.verdict is Verdict.ADJACENT
    assert any(e.kind == "taken_statement" and e.topic == "rag" for e in ownership.evidence)


def test_a_workspace_file_overrides_words_and_weights(tmp_path: Path) -> None:
    (tmp_path / "organized" / "knowledge").mkdir(parents=True)
    (tmp_path / "predigest-judgment.toml").write_text(
        '[statements]\nowner = ["交给 {topic}"]\n[weights]\nmin_owner = 1\n', encoding="utf-8")
    topic = resolve_topic("inference", Settings(), tmp_path)
    assert topic.judgment.weight("min_owner") == 1 and topic.judgment.weight("card_primary") == 10
    mentions, entries = _note("inbox/a/n.md", "list", "- arXiv:2610.20001 · a paper, 交给 rag\n- arXiv:2610.20002 · b",
                              ("2610.20001", "2610.20002"))
    ownership = judge_ownership("2610.20001", mentions[:1], entries, _data(), topic)
    assert ownership.owner == "rag" and any(e.kind == "owner_statement" for e in ownership.evidence)
    # One word of a listed line now owns the paper.
    lone, lone_entries = _note("inbox/a/n.md", "list", "- arXiv:2610.20001 · latency\n- arXiv:2610.20002 · b",
                               ("2610.20001", "2610.20002"))
    assert judge_ownership("2610.20001", lone[:1], lone_entries, _data(), topic).verdict is Verdict.RELEVANT


SHARED_ENTRY = {
    "table": "| arXiv | name | note |\n|---|---|---|\n| 2610.40001 | A | 今天已在 rag.md 锚定 |\n"
             "| 2610.40002 | B | inference.md 还没有，交给今晚 inference 的 E1 |\n",
    "list": "- A（arXiv:2610.40001）：今天已在 rag.md 锚定。\n- B（arXiv:2610.40002）：inference.md 还没有，交给 inference。\n",
    "prose": "A (arXiv:2610.40001) is anchored in rag.md today. B (arXiv:2610.40002) is not in inference.md yet, "
             "handing it over to inference for tonight.\n",
}


@pytest.mark.parametrize("form", sorted(SHARED_ENTRY))
def test_a_statement_binds_to_the_paper_it_is_written_next_to(form: str) -> None:
    """In rag's prep note, one entry about two papers: the anchoring is A's (rag's evidence, A is
    not inference's), the hand-over is B's (NET-new for inference, whatever rag did with A)."""
    from tests.judge.digests import views

    path = "inbox/nina/2026-10-09-nina-rag-e1prep.md"
    mentions, entries = views(path, f"# rag · E1 prep\n\n## 今日承接\n\n{SHARED_ENTRY[form]}")
    a = judge_ownership("2610.40001", [m for m in mentions if m.arxiv_id == "2610.40001"], entries, _data(), TOPIC)
    b = judge_ownership("2610.40002", [m for m in mentions if m.arxiv_id == "2610.40002"], entries, _data(), TOPIC)
    assert a.verdict is Verdict.NONE and any(e.kind == "taken_statement" and e.topic == "rag" for e in a.evidence)
    assert b.verdict is Verdict.RELEVANT and b.reason[0].key == "for_topic"
    assert not any(e.kind == "taken_statement" for e in b.evidence), b.evidence


def test_a_denied_hand_over_speaks_for_nobody() -> None:
    mentions, entries = _note("inbox/a/n.md", "条目 · P（arXiv:2610.30001）", "- 不交给 inference，先放着", ("2610.30001",))
    assert not any(e.kind == "handoff_statement" for e in judge_ownership(
        "2610.30001", mentions, entries, _data(), TOPIC).evidence)


# Declared evidence beats inferred: a digest's category tag on a paper's own line declares its topic.
@pytest.mark.parametrize("heading", [
    "R4 ▲120 · arXiv:2610.20001 · {tag}", "R4 ▲120 | arXiv:2610.20001 | {tag}", "{tag} arXiv:2610.20001 ▲120",
    "4. arXiv:2610.20001 {tag}", "- 2610.20001 ({tag})",
])
@pytest.mark.parametrize("tag", ["[mm]", "[other]", "[agents]"])
@pytest.mark.parametrize("lang_text", [
    "- 推理引擎 vLLM 上的 KV cache 调度与 prefill 吞吐（inference serving）",
    "- KV cache scheduling and prefill throughput on vLLM (inference serving)",
])
def test_a_digest_tag_for_another_topic_outweighs_vocabulary(heading: str, tag: str, lang_text: str) -> None:
    heading = heading.format(tag=tag)
    mentions, entries = _note("inbox/tom/2026-10-09-0900-hf-daily.md", heading, lang_text, ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is Verdict.NONE


@pytest.mark.parametrize("tag", ["[inf]", "[inference]"])
def test_a_digest_tag_for_the_topic_declares_it(tag: str) -> None:
    mentions, entries = _note("inbox/tom/2026-10-09-0900-hf-daily.md", f"R9 ▲40 · arXiv:2610.20001 · {tag}",
                              "- a paper about model zoos", ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is Verdict.RELEVANT


def test_a_link_or_a_dated_label_is_no_tag() -> None:
    text = "- vLLM KV cache prefill scheduler: see [notes](https://example.org) [Sep 10]"
    mentions, entries = _note("inbox/jay/2026-10-09-jay-deep-dive.md", "条目1 · arXiv:2610.20001 · [notes](x)", text,
                              ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is Verdict.RELEVANT


@pytest.mark.parametrize("text", [
    "- 我只看了摘要，算作背景阅读；vLLM 调度 serving 相关",
    "- I only read the abstract: background reading for the vLLM serving scheduler section",
])
def test_a_paper_filed_as_background_is_at_most_adjacent(text: str) -> None:
    mentions, entries = _note("inbox/jay/2026-10-09-jay-research.md", "条目#4 arXiv:2610.20001", text, ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is Verdict.ADJACENT


def test_a_queue_category_that_is_no_topic_still_declares_another() -> None:
    mentions, entries = _note("inbox/tom/radar.md", "Entry 2 · arXiv:2610.20001",
                              "- inference serving with vLLM, KV cache and prefill on GPU", ("2610.20001",))
    data = _data(queue={"2610.20001": [("engineering", None)]})
    assert _verdict("2610.20001", mentions, entries, data) is Verdict.NONE
    data = _data(queue={"2610.20001": [("engineering", "inference")]})
    assert _verdict("2610.20001", mentions, entries, data) is Verdict.RELEVANT


# A category the note itself gives in words ("分类：mm") or in a table column is declared, too.
@pytest.mark.parametrize("label", ["分类：{c}", "主分类: {c}", "Category: {c}", "**类别**：{c}", "primary category: [{c}]"])
@pytest.mark.parametrize(("category", "verdict"), [("mm", Verdict.NONE), ("other", Verdict.NONE),
                                                   ("inference", Verdict.RELEVANT)])
@pytest.mark.parametrize("lang_text", [
    "- 推理引擎 vLLM 上的 KV cache 调度与 prefill 吞吐（inference serving）",
    "- KV cache scheduling and prefill throughput on vLLM (inference serving)",
])
def test_a_labelled_category_in_the_notes_words_is_declared(label: str, category: str, verdict: Verdict,
                                                            lang_text: str) -> None:
    text = f"{lang_text}\n- {label.format(c=category)}"
    mentions, entries = _note("inbox/jay/2026-10-09-jay-research.md", "条目#2 arXiv:2610.20001", text, ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is verdict


@pytest.mark.parametrize("label", ["副分类：mm", "sub-category: mm", "分类 mm", "分类：待定", "Category: TBD"])
def test_a_secondary_or_unlabelled_word_declares_no_category(label: str) -> None:
    # 副分类 is a secondary category, a bare word is no label, and 待定 / TBD name no category.
    text = f"- KV cache scheduling and prefill throughput on vLLM (inference serving)\n- {label}"
    mentions, entries = _note("inbox/jay/2026-10-09-jay-research.md", "条目#2 arXiv:2610.20001", text, ("2610.20001",))
    assert _verdict("2610.20001", mentions, entries) is Verdict.RELEVANT


@pytest.mark.parametrize(("header", "cell", "verdict"), [
    ("| arXiv | 标题 | 分类 |", "mm", Verdict.NONE), ("| arXiv | title | category |", "other", Verdict.NONE),
    ("| arXiv | title | category |", "`agents`", Verdict.NONE), ("| arXiv | 标题 | 分类 |", "inference", Verdict.RELEVANT),
])
def test_a_category_column_of_a_notes_table_is_declared(header: str, cell: str, verdict: Verdict) -> None:
    rows = [header, "|---|---|---|",
            f"| arXiv:2610.20001 | vLLM KV cache prefill scheduler for inference serving on GPU | {cell} |",
            "| arXiv:2610.20002 | a survey of agent benchmarks | agents |"]
    mentions, entries = _note("inbox/jay/2026-10-09-jay-digest.md", "今日论文", "\n".join(rows),
                              ("2610.20001", "2610.20002"))
    for m in mentions:  # each id's own row is its context, as ingest stores a table's mentions
        object.__setattr__(m, "context", next(r for r in rows if m.arxiv_id in r))
    assert _verdict("2610.20001", mentions, entries) is verdict
