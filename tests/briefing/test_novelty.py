"""Contract of tasks.increments.novelty: the signals of an entry without an arXiv id, in zh and en.

A release, a measured comparison of two named systems and an off-arXiv preprint each reach the
threshold on their own shape (with a named heading), in either language and whatever their
wording; a re-read, an opinion piece or a hedged claim is held under it; links to arXiv are not
an official source. Candidates of two sources merge on a fuzzy name, a coined head word with the
same version (or alone), or a shared link (tasks.increments.engineering).
"""

from __future__ import annotations

import pytest

from tasks.config.judgment import default_judgment
from tasks.inbox.notes import parse_note
from tasks.increments.candidates import Candidate
from tasks.increments.engineering import _same
from tasks.increments.novelty import entry_signals, links, signal_score
from tasks.model.window_views import EntryView

J = default_judgment()
TERMS = ("vLLM", "SGLang", "TensorRT-LLM", "KV cache", "serving", "prefill", "decode")
THRESHOLD = J.weight("eng_threshold")


def _entry(note: str) -> EntryView:
    (e,) = [e for e in parse_note(note).entries if e.title]
    return EntryView(1, "inbox/x/2026-10-09T1000-x.md", "note", e.ordinal, e.label, e.heading_path, e.title, e.text,
                     tuple(e.hedges), tuple(e.numbers))


def _kinds(note: str) -> set[str]:
    return {s.kind for s in entry_signals(_entry(note), J, "inference", TERMS)}


def _score(note: str) -> float:
    return signal_score(entry_signals(_entry(note), J, "inference", TERMS))


NEW = {
    "release_en": ("## Kestrel 2.0 is now generally available\n- Announced on https://kestrel.dev/blog/2-0 today.\n",
                   {"eng_named", "eng_release", "eng_official"}),
    "release_zh": ("## FooServe v3 正式发布\n- 官方博客：前缀缓存默认开启，decode 提速。\n",
                   {"eng_named", "eng_release", "eng_official"}),
    "comparison_en": ("## Hydra against SGLang on H200\n- Hydra is 1.3× faster than SGLang on bursty traffic only.\n",
                      {"eng_named", "eng_measurement"}),
    "comparison_zh": ("## LMDeploy 与 vLLM 实测对比\n- 长前缀对话流量下 LMDeploy 吞吐比 vLLM 高 27%；短请求下持平。\n",
                      {"eng_named", "eng_measurement"}),
    "preprint_openreview": ("## A Taxonomy of Serving Schedulers\n- https://openreview.net/forum?id=abc123XYZ\n",
                            {"eng_named", "eng_preprint"}),
    "preprint_pdf_zh": ("## 推理调度分类法 ServeTax\n- 作者主页的 PDF：https://people.example.edu/~li/servetax.pdf\n",
                        {"eng_named", "eng_preprint"}),
}
NOT_NEW = {
    "re_read_en": "## Re-reading the vLLM scheduler docs\n- A recap for the team, no numbers.\n",
    "opinion_zh": "## 「推理即产品」观点文\n- 作者认为 SGLang 会赢。\n",
    "hedged_zh": "## FooServe 传闻\n- 据说比 vLLM 快 2×，待核实。\n",
    "arxiv_link_only": "## Some Serving Paper\n- https://arxiv.org/abs/2610.01234\n",
}


@pytest.mark.parametrize("name", sorted(NEW))
def test_new_things_reach_the_threshold(name: str) -> None:
    note, kinds = NEW[name]
    assert kinds <= _kinds(note), _kinds(note)
    assert _score(note) >= THRESHOLD


@pytest.mark.parametrize("name", sorted(NOT_NEW))
def test_background_opinion_and_hedged_stay_below(name: str) -> None:
    assert _score(NOT_NEW[name]) < THRESHOLD, _kinds(NOT_NEW[name])


def test_arxiv_is_not_an_official_source() -> None:
    assert "eng_official" not in _kinds(NOT_NEW["arxiv_link_only"])
    assert "eng_preprint" not in _kinds(NOT_NEW["arxiv_link_only"])


def test_links_read_bare_domains_and_schemes() -> None:
    text = "see github.com/org/repo/releases and https://www.example.dev/blog/x)."
    assert links(text) == [("github.com", "github.com/org/repo/releases"), ("example.dev", "example.dev/blog/x")]


def test_each_signal_counts_once_and_sources_add_up() -> None:
    note = NEW["release_en"][0]
    signals = entry_signals(_entry(note), J, "inference", TERMS)
    assert signal_score(signals + signals) == signal_score(signals)


def _candidate(title: str, text: str = "") -> Candidate:
    entry = EntryView(1, f"inbox/x/{title}.md", "note", 1, None, title, title, text, ())
    return Candidate(title, [entry], recommended=False)


@pytest.mark.parametrize(("a", "b", "same"), [
    (("Kestrel 2.0: disaggregated prefill goes GA", ""), ("Kestrel 2.0 is out", ""), True),
    (("Kestrel 2.0 正式发布", ""), ("Kestrel", ""), True),
    (("NVIDIA Dynamo 2.0", ""), ("NVIDIA NIM profiles", ""), False),
    (("Kestrel 2.0", ""), ("Kestrel 3.1 preview", ""), False),
    (("Hydra benchmark", "see https://hydra.dev/blog/x"), ("A new engine", "via hydra.dev/blog/x"), True),
])
def test_candidates_merge_by_name_head_word_and_version_or_link(
        a: tuple[str, str], b: tuple[str, str], same: bool) -> None:
    assert _same(_candidate(*a), _candidate(*b), frozenset({"vllm"}), J) is same
