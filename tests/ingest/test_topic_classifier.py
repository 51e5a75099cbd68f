"""Contract of tasks.ingest.topics.TopicClassifier: for any text and declared categories it gives
exactly what tasks.judge.item_topics.classify_topics gives (scores included), however terms overlap,
contain one another, repeat but for case, run together, change case or use the characters re.I
folds onto ASCII letters (ı İ ſ, the Kelvin sign); the folding table covers every such character;
and its rule for which terms can overlap never misses two matches that do. Runs without a database."""

from __future__ import annotations

import random
import re
from pathlib import Path

from predigest.settings import Settings
from predigest.topics import Topic
from tasks import run
from tasks.ingest.sources import note_items
from tasks.ingest.term_overlap import may_overlap
from tasks.ingest.topics import _FOLD, TopicClassifier, _term_regex
from tasks.judge.item_topics import classify_topics, score_topics
from tests.helpers import SAMPLE_WORKSPACE

ODD = Topic("odd", "UTC", "0 0 * * *", aliases=("od",), terms=(
    " lead", "trail ", "Ωmega", "straße", "a b c", "KV", "kv cache", "cache", "ache", "x-y", "tok/s", "s",
    "İstanbul", "中 文", "文", "  ",
))


# Terms that contain, repeat or run into one another, bounded or not: what decides whether the
# classifier may count matching terms without replaying the alternation.
TANGLED = Topic("tangled", "UTC", "0 0 * * *", aliases=("Tangled",), terms=(
    "llm-infra", "infra", "LLM", "multi-agent", "agent", "Agent", "kv cache", "KV-cache", "kvcache", "cache",
    "prefix cache", "prefix caching", "训练", "预训练", "训练集", "ab", "bc", "abc", "a-b", "b-c", "x y z", "y z",
    "serving", "sg", "GPU", "gpu-s", "s-gpu", "tangled",
))


def _topics() -> list[Topic]:
    return [*run.all_topics(Settings(_env_file=None), SAMPLE_WORKSPACE), ODD, TANGLED]  # type: ignore[call-arg]


def test_same_answer_as_classify_topics_on_the_sample_notes() -> None:
    topics = _topics()
    classifier = TopicClassifier(topics)
    texts = [
        entry.heading + "\n" + entry.text
        for path in sorted(Path(SAMPLE_WORKSPACE, "inbox").rglob("*.md"))
        for entry in note_items(path.read_bytes().decode("utf-8", "replace"))
    ]
    assert len(texts) > 100
    for text in texts:
        assert classifier.classify(text) == classify_topics(text, topics)
        assert classifier.classify(text, "rag", ["inference", "agents"]) == classify_topics(
            text, topics, "rag", ["inference", "agents"])


def test_same_scores_on_adversarial_text() -> None:
    topics = _topics()
    classifier = TopicClassifier(topics)
    rng = random.Random(7)
    pieces = [t for topic in topics for t in (*topic.names, *topic.terms)]
    pieces += [" ", "", "-", "\n", "x", "中", "0", ".", "/", "\t", "Ω", "ß", "\u017f", "\u0131", "\u0130", "\u212a"]
    folds = {"k": "\u212a", "K": "\u212a", "s": "\u017f", "i": "\u0131", "I": "\u0130"}
    for _ in range(4000):
        parts = []
        for _ in range(rng.randrange(1, 12)):
            piece = rng.choice(pieces)
            piece = rng.choice([piece, piece.upper(), piece.lower()])
            if piece and rng.random() < 0.2:
                k = rng.randrange(len(piece))
                piece = piece[:k] + rng.choice(["", " ", "x", "-"]) + piece[k + 1:]
            if rng.random() < 0.3:
                piece = "".join(folds.get(c, c) if rng.random() < 0.5 else c for c in piece)
            parts.append(piece)
        text = rng.choice(["", " ", "x"]).join(parts)
        assert classifier.scores(text) == score_topics(text, topics), text


def test_fold_table_covers_every_character_re_i_matches_with_ascii_alphanumerics() -> None:
    ascii_alnum = re.compile("[A-Za-z0-9]", re.I)
    odd = {chr(cp) for cp in range(0x80, 0x110000)
           if not 0xD800 <= cp <= 0xDFFF and ascii_alnum.match(chr(cp))}
    assert odd == {"\u0130", "\u0131", "\u017f", "\u212a"}
    for c in odd:
        folded = c.translate(_FOLD).lower()
        assert len(folded) == 1 and folded.isascii() and re.match(re.escape(folded), c, re.I)


def _spans(term: str, text: str) -> set[tuple[int, int]]:
    """Every match of the term's pattern, at every start (overlapping ones included)."""
    pattern = _term_regex(term)
    return {m.span() for pos in range(len(text) + 1) if (m := pattern.match(text, pos))}


def test_terms_said_not_to_overlap_never_do() -> None:
    terms = sorted({t for topic in _topics() for t in (*topic.names, *topic.terms) if t.strip()})
    rng = random.Random(11)
    pieces = [*terms, " ", "-", "\n", "x", "中", "0", "/", "ing"]
    for _ in range(1500):
        text = rng.choice(["", " "]).join(
            rng.choice([p, p.upper()]) for p in (rng.choice(pieces) for _ in range(rng.randrange(2, 8))))
        spans = {term: _spans(term, text) for term in terms}
        found = [term for term in terms if spans[term]]
        for a in found:
            for b in found:
                if a != b and not may_overlap(a, b):
                    assert not any(s < f2 and s2 < f for s, f in spans[a] for s2, f2 in spans[b]), (a, b, text)
