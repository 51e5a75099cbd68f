"""Contract of a paper listed in one line or table row of a note about several papers.

- A paper a row or list item names only as what another paper is compared with ("compared with
  X", "than X", 「比 X」, an id in a later cell of another paper's row) has no own text there.
- A listed paper whose own line has the topic's vocabulary is the topic's when the note as a whole
  is about the topic (`note_about_topic`); in a note of mixed topics its line alone decides, a
  declared category or tag still beats it, and a line without the topic's words owns nothing.
"""

from __future__ import annotations

import pytest

from tasks.judge.compared import context_pattern
from tasks.judge.evidence import judge_ownership
from tasks.judge.own_text import own_texts
from tasks.judge.relevance import Verdict
from tests.judge.digests import views
from tests.judge.test_ownership import TOPIC, _data

PATH = "inbox/ann/2026-11-20-ann-reading.md"
SERVING_TABLE = """# Papers this week

| Paper | arXiv | Claim | Status |
|---|---|---|---|
| PageMix: paged prefill scheduling | 2611.60001 | TTFT down 30% on vLLM with chunked prefill on H100 | checked |
| SpecLite: draft-free decoding | 2611.60002 | 1.7x decode speedup compared with Hydra (arXiv:2611.60009) at 1.3x | unverified |
| QuantServe: FP8 serving | 2611.60003 | throughput up 2x with FP8 on the SGLang router | checked |
"""
SERVING_LIST = """# Reading group notes

- PageMix (arXiv:2611.60001): paged prefill scheduling, TTFT down 30% on vLLM with chunked prefill.
- SpecLite (arXiv:2611.60002): 1.7x decode speedup, faster than Hydra (arXiv:2611.60009) on one model.
- QuantServe (arXiv:2611.60003): FP8 serving, throughput up 2x on the SGLang router.
"""
SERVING_ZH = """# 本周论文

- PageMix（arXiv:2611.60001）：分页 prefill 调度，vLLM 上 chunked prefill 后 TTFT 降 30%。
- SpecLite（arXiv:2611.60002）：decode 提速 1.7x，比 Hydra（arXiv:2611.60009）快。
- QuantServe（arXiv:2611.60003）：FP8 serving，SGLang router 上吞吐翻倍。
"""
MIXED = """# Daily papers

- VidGen (arXiv:2611.60011): video generation at 4K with temporal consistency.
- ToolBench2 (arXiv:2611.60012): an agent benchmark of tool use, with an MCP planner.
- RerankX (arXiv:2611.60013): a reranker for retrieval over a vector database.
- SpecLite (arXiv:2611.60002): 1.7x decode speedup on one model.
"""


def _judge(text: str, arxiv_id: str, path: str = PATH) -> Verdict:
    mentions, entries = views(path, text)
    return judge_ownership(arxiv_id, [m for m in mentions if m.arxiv_id == arxiv_id], entries, _data(), TOPIC).verdict


@pytest.mark.parametrize("note", [SERVING_TABLE, SERVING_LIST, SERVING_ZH])
def test_a_compared_paper_has_no_own_text_in_the_other_papers_line(note: str) -> None:
    mentions, entries = views(PATH, note)
    compared = [m for m in mentions if m.arxiv_id == "2611.60009"]
    assert compared and not list(own_texts("2611.60009", compared, entries, context_pattern(TOPIC.judgment)))
    listed = [m for m in mentions if m.arxiv_id == "2611.60002"]
    assert list(own_texts("2611.60002", listed, entries, context_pattern(TOPIC.judgment)))
    assert _judge(note, "2611.60009") is Verdict.NONE


@pytest.mark.parametrize("note", [SERVING_TABLE, SERVING_LIST, SERVING_ZH])
def test_a_listed_paper_of_a_note_about_the_topic_is_the_topics(note: str) -> None:
    assert _judge(note, "2611.60002") is Verdict.RELEVANT


def test_in_a_note_of_mixed_topics_a_thin_line_owns_nothing() -> None:
    assert _judge(MIXED, "2611.60002") is Verdict.NONE


def test_a_line_without_the_topics_words_owns_nothing_in_a_note_about_the_topic() -> None:
    note = SERVING_LIST + "- Vidora (arXiv:2611.60004): video generation at 4K resolution.\n"
    assert _judge(note, "2611.60004") is Verdict.NONE


@pytest.mark.parametrize("tag", ["[mm]", "[other]", "[rag]"])
def test_an_explicit_tag_still_beats_the_notes_subject(tag: str) -> None:
    note = SERVING_LIST.replace("1.7x decode speedup,", f"{tag} 1.7x decode speedup,")
    assert _judge(note, "2611.60002") is Verdict.NONE
    assert _judge(note, "2611.60003") is Verdict.RELEVANT


def test_a_category_cell_still_beats_the_notes_subject() -> None:
    note = SERVING_TABLE.replace("| unverified |", "| rag |")
    assert _judge(note, "2611.60002") is Verdict.NONE


def test_an_id_in_a_later_cell_of_another_papers_row_is_not_its_row() -> None:
    note = SERVING_TABLE.replace("compared with Hydra (arXiv:2611.60009) at 1.3x", "Hydra 2611.60009 did 1.3x")
    mentions, entries = views(PATH, note)
    compared = [m for m in mentions if m.arxiv_id == "2611.60009"]
    assert compared and not list(own_texts("2611.60009", compared, entries, context_pattern(TOPIC.judgment)))


def test_a_digest_of_one_topic_word_a_line_has_no_subject() -> None:
    words = ["latency", "GPU", "throughput", "kernel", "decode", "H100", "router", "prefill"]
    note = "# Radar\n\n" + "".join(f"- P{k} (arXiv:2611.{61000 + k}): about {w} trade-offs\n" for k, w in enumerate(words))
    assert all(_judge(note, f"2611.{61000 + k}") is Verdict.NONE for k in range(len(words)))


def test_a_notes_blocks_are_read_once_for_all_the_papers_it_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.judge import note_subject

    reads = []
    real = note_subject._read_blocks
    monkeypatch.setattr(note_subject, "_read_blocks", lambda *a: reads.append(a[0]) or real(*a))
    mentions, entries = views(PATH, SERVING_LIST)
    for arxiv_id in ("2611.60001", "2611.60002", "2611.60003"):
        judge_ownership(arxiv_id, [m for m in mentions if m.arxiv_id == arxiv_id], entries, _data(), TOPIC)
    assert reads == [1]


def test_a_line_naming_many_papers_is_read_for_comparisons_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A digest line naming n papers, with no clause between them, is every one's own text: it is
    searched for comparisons once, not once per paper (n searches of an n-id line are quadratic)."""
    from tasks.judge import compared, own_text

    n = 200
    line = "- " + " ".join(f"arXiv:2611.{62000 + k}" for k in range(n)) + " serving kernels\n"
    mentions, entries = views(PATH, "# Dump\n\nIntro.\n\n## Ids\n\n" + line)
    own_text._named_outside_context.cache_clear()
    searches = []
    real = compared.without_context
    monkeypatch.setattr(own_text, "without_context", lambda p, t: searches.append(len(t)) or real(p, t))
    for k in range(n):
        arxiv_id = f"2611.{62000 + k}"
        list(own_texts(arxiv_id, [m for m in mentions if m.arxiv_id == arxiv_id], entries, context_pattern(TOPIC.judgment)))
    assert len(searches) <= 2 * n  # each paper's heading at most, and the long line once
    assert sum(searches) < 4 * len(line)
