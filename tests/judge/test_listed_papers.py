"""Contract of a paper listed in one line or table row of a note about several papers.

- A paper a row or list item names only as what another paper is compared with ("compared with
  X", "than X", 「比 X」, an id in a later cell of another paper's row) has no own text there.
"""

from __future__ import annotations

import pytest

from tasks.judge.compared import context_pattern
from tasks.judge.own_text import own_texts
from tests.judge.digests import views
from tests.judge.test_ownership import TOPIC

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


@pytest.mark.parametrize("note", [SERVING_TABLE, SERVING_LIST, SERVING_ZH])
def test_a_compared_paper_has_no_own_text_in_the_other_papers_line(note: str) -> None:
    mentions, entries = views(PATH, note)
    compared = [m for m in mentions if m.arxiv_id == "2611.60009"]
    assert compared and not list(own_texts("2611.60009", compared, entries, context_pattern(TOPIC.judgment)))
    listed = [m for m in mentions if m.arxiv_id == "2611.60002"]
    assert list(own_texts("2611.60002", listed, entries, context_pattern(TOPIC.judgment)))


def test_an_id_in_a_later_cell_of_another_papers_row_is_not_its_row() -> None:
    note = SERVING_TABLE.replace("compared with Hydra (arXiv:2611.60009) at 1.3x", "Hydra 2611.60009 did 1.3x")
    mentions, entries = views(PATH, note)
    compared = [m for m in mentions if m.arxiv_id == "2611.60009"]
    assert compared and not list(own_texts("2611.60009", compared, entries, context_pattern(TOPIC.judgment)))
