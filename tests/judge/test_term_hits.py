"""Contract of tasks.judge.terms: `term_hits` (through `Vocabulary.hits`, which scans only the terms
that could occur) finds exactly what one `re.I` alternation over the whole vocabulary finds
(`reference_hits`), however terms overlap, run together, change case or use the characters re.I
folds onto ASCII letters (ı İ ſ, the Kelvin sign), on the entries of generated notes in the sample's
five styles (every topic's vocabulary, CRLF and GB18030 files among them) and on adversarial text.
Runs without a database."""

from __future__ import annotations

import random
import re
from itertools import groupby
from pathlib import Path

from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.ingest.sources import note_items
from tasks.judge.relevance import term_hits
from tasks.judge.terms import _FOLD, kept_terms, reference_hits, term_pattern, terms_pattern, vocabulary
from tasks.stages.briefed_topics import all_topics
from tests.generate.large import generate
from tests.helpers import NO_WORKSPACE

ODD = Topic("odd", "UTC", "0 0 * * *", aliases=("od",), terms=(
    " lead", "trail ", "Ωmega", "straße", "a b c", "KV", "kv cache", "cache", "ache", "x-y", "tok/s", "s",
    "İstanbul", "中 文", "文", "  ", "\tq", "a\tb", "x.y", ".cpp", "c++", "K", "kelvin", "llm-d", "LLM",
))


def _vocabularies() -> list[tuple[str, ...]]:
    topics = [*all_topics(Settings(_env_file=None), NO_WORKSPACE), ODD]  # type: ignore[call-arg]
    return [tuple(dict.fromkeys((*t.names, *t.terms))) for t in topics]


def test_same_hits_as_the_alternation_on_generated_notes(tmp_path: Path) -> None:
    vocabularies = _vocabularies()
    generate(tmp_path, notes=40, seed=11, days=20, anchors=50)
    texts = [
        entry.heading + "\n" + entry.text
        for path in sorted(Path(tmp_path, "inbox").rglob("*.md"))
        for entry in note_items(path.read_bytes().decode("utf-8", "replace"))
    ]
    assert len(texts) > 100
    found = 0
    for text in texts:
        for terms in vocabularies:
            hits = term_hits(text, terms)
            assert hits == reference_hits(text, terms)
            found += bool(hits)
    assert found > 100  # the check is not vacuous


def _adversarial_texts(vocabularies: list[tuple[str, ...]], count: int, seed: int = 7) -> list[str]:
    """Texts pieced from the terms, changed in case, broken by a character, or spelled with the
    characters re.I folds onto ASCII letters."""
    rng = random.Random(seed)
    pieces = [t for terms in vocabularies for t in terms]
    pieces += [" ", "", "-", "\n", "x", "中", "0", ".", "/", "\t", "Ω", "ß", "\u017f", "\u0131", "\u0130", "\u212a"]
    folds = {"k": "\u212a", "K": "\u212a", "s": "\u017f", "i": "\u0131", "I": "\u0130"}
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randrange(1, 12)):
            piece = rng.choice(pieces)
            piece = rng.choice([piece, piece.upper(), piece.lower()])
            if piece and rng.random() < 0.2:
                k = rng.randrange(len(piece))
                piece = piece[:k] + rng.choice(["", " ", "x", "-", "\t"]) + piece[k + 1:]
            if rng.random() < 0.3:
                piece = "".join(folds.get(c, c) if rng.random() < 0.5 else c for c in piece)
            parts.append(piece)
        texts.append(rng.choice(["", " ", "x", "\n"]).join(parts))
    return texts


def test_same_hits_on_adversarial_text() -> None:
    vocabularies = _vocabularies()
    for text in _adversarial_texts(vocabularies, 4000):
        for terms in vocabularies:
            assert vocabulary(terms).hits(text) == reference_hits(text, terms), (text, terms)
        odd = vocabulary(ODD.terms)
        matching = {t for t in kept_terms(ODD.terms) if re.search(term_pattern(t), text, re.I)}
        assert matching <= odd.could_occur(text), (text, matching - odd.could_occur(text))


def test_runs_of_bounded_terms_share_their_boundaries_and_match_as_before() -> None:
    """`terms_pattern` finds the same matches, preferring the same term, as the alternation of each
    term's own pattern, whatever the order of ASCII-word and other terms."""
    # Terms that start where others start and end elsewhere: which one the order prefers shows.
    overlapping = ("ab+", "ab", "+ab", "ab c", "a b", "ab中", "中ab", "ab-c", "b", "c", "+")
    vocabularies = [*_vocabularies(), overlapping]
    rng = random.Random(3)
    orders = [list(terms) for terms in vocabularies]
    orders += [rng.sample(list(terms), len(terms)) for terms in vocabularies for _ in range(3)]
    orders += [sorted(kept_terms(terms), key=lambda w: (-len(w), w)) for terms in vocabularies]
    runs = [sum(1 for _ in groupby(order, key=lambda t: bool(re.match(r"\(\?<!", term_pattern(t))))) for order in orders]
    assert max(runs) > 3  # some orders interleave ASCII-word terms with others
    texts = _adversarial_texts(vocabularies, 600, seed=5)
    for order in orders:
        kept = [t for t in order if t.strip()]
        each, shared = re.compile("|".join(map(term_pattern, kept)), re.I), re.compile(terms_pattern(kept), re.I)
        for text in texts:
            assert [(m.span(), m.group(0)) for m in each.finditer(text)] == \
                [(m.span(), m.group(0)) for m in shared.finditer(text)], (text, kept)


def test_could_occur_leaves_out_terms_absent_from_the_text() -> None:
    """Terms with cased non-ASCII letters are ruled out by their other runs, not always scanned."""
    words = vocabulary(("mesuré", "Wochenrückblick", "straße", "ß", "release notes"))
    assert words.could_occur("a long body of text about serving systems " * 50) == {"ß"}
    assert words.could_occur("WOCHENRÜCKBLICK und Release  Notes") >= {"Wochenrückblick", "release notes"}


def test_blank_and_empty_vocabularies() -> None:
    assert term_hits("anything at all", ()) == () == reference_hits("anything at all", ())
    assert term_hits("  \t", (" ", "")) == ()


def test_fold_table_covers_every_character_re_i_matches_with_ascii_alphanumerics() -> None:
    ascii_alnum = re.compile("[A-Za-z0-9]", re.I)
    odd = {chr(cp) for cp in range(0x80, 0x110000)
           if not 0xD800 <= cp <= 0xDFFF and ascii_alnum.match(chr(cp))}
    assert odd == {"\u0130", "\u0131", "\u017f", "\u212a"}
    for c in odd:
        folded = c.translate(_FOLD).lower()
        assert len(folded) == 1 and folded.isascii() and re.match(re.escape(folded), c, re.I)
