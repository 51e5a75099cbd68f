"""Is a paper the briefed topic's, adjacent to it, or not its: evidence per topic, decided per topic.

Evidence (a kind with a weight from `judgment.toml [weights]`) is gathered for every known topic:
declared categories (cards, queue, digest tags), the topic a note is written for, statements in the
paper's own text (`tasks.judge.own_text`: owner, handoff, missing, taken, primary, secondary,
exclusion; each binds to the paper it is written next to), topic vocabulary in that own text
only, and the subject of a note whose own text of the paper has that subject's vocabulary
(`tasks.judge.note_subject`). Adjacency and background registrations carry no weight.
`decide` rules for one topic T from T's evidence and what the sources say about T, never by
comparing totals across topics, so a paper can be T's and X's on the same evening. Its docstring
lists the rules in order; docs/judgment.md ("Topics of a paper") explains them for readers.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tasks.config.judgment import Judgment, TopicTerms
from tasks.config.topics import Topic
from tasks.judge.compared import context_pattern
from tasks.judge.note_subject import subject_evidence
from tasks.judge.own_text import OwnText, entry_own_text, note_topics, own_texts, preambles
from tasks.judge.reader import reader_decision, reader_evidence
from tasks.judge.relevance import Verdict
from tasks.judge.statements import found_word, topic_statements
from tasks.judge.terms import vocabulary
from tasks.model.judged import Evidence, Reason
from tasks.model.window_views import EntryView, MentionView, WindowData


@dataclass
class Ownership:
    """The evidence about one paper, every topic's total, and the decision for the briefed topic."""

    evidence: list[Evidence] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    # The topic this decision rests on: the briefed topic when its own standing decided, else the
    # topic that holds the paper as primary (T has it as secondary or adjacent); None when neither.
    owner: str | None = None
    verdict: Verdict = Verdict.NONE
    reason: tuple[Reason, ...] = ()


DECLARED = ("card_primary", "queue_primary", "stated_primary", "tagged_category")
SECONDARY = ("card_secondary", "queue_secondary", "stated_secondary")
SPEAKS_FOR = ("owner_statement", "handoff_statement", "missing_statement")
# Another topic holds the paper as primary: it declares it so, or a source says it belongs there.
HOLDS = (*DECLARED, "owner_statement")
# Statement tables read in a paper's own text, and the evidence each is.
STATEMENT_KINDS = (("owner", "owner_statement"), ("handoff", "handoff_statement"), ("missing", "missing_statement"),
                   ("taken", "taken_statement"), ("primary", "stated_primary"), ("secondary", "stated_secondary"),
                   ("exclusion", "exclusion"))


def known_topics(topic: Topic) -> tuple[TopicTerms, ...]:
    """Every topic the judgment knows, the briefed one included even when unconfigured."""
    topics = list(topic.judgment.topics)
    if not any(t.name == topic.name for t in topics):
        topics.append(TopicTerms(topic.name, topic.names, tuple(dict.fromkeys((*topic.names, *topic.terms)))))
    return tuple(topics)


def _category(name: str, topics: Sequence[TopicTerms]) -> str:
    """A declared category as a topic name (an alias maps to its topic; an unknown category stays itself)."""
    lowered = name.strip().lower()
    return next((t.name for t in topics if lowered in {n.lower() for n in (*t.names, *t.tags)}), lowered)


def _declared(arxiv_id: str, data: WindowData, mentions: Sequence[MentionView], j: Judgment,
              topics: Sequence[TopicTerms]) -> list[Evidence]:
    out: list[Evidence] = []
    for card in data.cards.get(arxiv_id, []):
        if card.primary:
            out.append(Evidence(card.path, "card_primary", _category(card.primary, topics), j.weight("card_primary")))
        out += [Evidence(card.path, "card_secondary", _category(s, topics), j.weight("card_secondary"))
                for s in card.secondary if s.strip()]
    out += _tagged(mentions, j, topics)
    queue_path = next((m.path for m in mentions if m.kind == "work_queue"), "work_queue")
    for primary, secondary in dict.fromkeys(data.queue_categories.get(arxiv_id, [])):
        if primary:
            out.append(Evidence(queue_path, "queue_primary", _category(primary, topics), j.weight("queue_primary")))
        out += [Evidence(queue_path, "queue_secondary", _category(s, topics), j.weight("queue_secondary"))
                for s in (secondary or "").split(",") if s.strip()]
    return out


# A category tag on a paper's own line, wherever it stands ("arXiv:2609.29944 · [mm]", "[mm] arXiv:…",
# "2609.29944 [other]"); never a link's text ("[name](url)"), a checkbox or a bracketed phrase with
# spaces ("[Sep 10]"). Only a tag naming a topic or an `other_categories` word counts.
_TAG = re.compile(r"(?<![\w\]])\[([A-Za-z][A-Za-z0-9_-]{1,19})\](?![(\[:])")


def _tag_category(tag: str, j: Judgment, topics: Sequence[TopicTerms]) -> str | None:
    """The topic a tag names (`_category`), or a category that is no topic; None for any other word."""
    category = _category(tag, topics)
    if category in {t.name for t in topics} or category in {w.lower() for w in j.words("statements", "other_categories")}:
        return category
    return None


def _tagged(mentions: Sequence[MentionView], j: Judgment, topics: Sequence[TopicTerms]) -> list[Evidence]:
    """Categories digests tag a paper with, on the lines that name it (a note's, never a card's or the queue's)."""
    out = []
    for m in mentions:
        if m.kind in ("paper_card", "work_queue") or not m.raw:
            continue
        for line in f"{m.heading}\n{m.context}".split("\n"):
            if m.raw not in line:
                continue
            for tag in _TAG.findall(line):
                category = _tag_category(tag, j, topics)
                if category:
                    out.append(Evidence(m.path, "tagged_category", category, j.weight("tagged_category"), f"[{tag}]"))
    return out


def _categorised(text: OwnText, j: Judgment, topics: Sequence[TopicTerms]) -> list[Evidence]:
    """Categories a note's own text gives the paper: a labelled value ("分类：mm", "Category: other")
    or a table cell that is nothing but a category ("| arXiv:… | title | mm |")."""
    out: list[Evidence] = []
    if not text.note:
        return out
    for label, value in _labelled(tuple(j.words("statements", "category_labels"))).findall(text.body):
        category = _tag_category(value, j, topics)
        if category:
            out.append(Evidence(text.path, "tagged_category", category, j.weight("tagged_category"), f"{label}：{value}"))
    for line in text.body.split("\n"):
        if not line.lstrip().startswith("|"):
            continue
        for cell in line.strip().strip("|").split("|"):
            word = cell.strip().strip("`*[]")
            category = _tag_category(word, j, topics) if _CELL_WORD.fullmatch(word) else None
            if category:
                out.append(Evidence(text.path, "tagged_category", category, j.weight("tagged_category"), f"| {word} |"))
    return out


_CELL_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{1,19}|[\u3400-\u9fff]{1,8}")


@lru_cache(maxsize=8)
def _labelled(labels: tuple[str, ...]) -> re.Pattern[str]:
    # Longest label first, so "primary category" is read before "primary"; never after a word
    # character or a hyphen (副分类, sub-category); bold around the label is markup.
    names = "|".join(re.escape(w) for w in sorted(labels, key=len, reverse=True))
    return re.compile(rf"(?<![\w\u3400-\u9fff-])({names})(?:\*\*|__)?\s*[：:]\s*(?:\*\*|__)?\s*[\[`]?([A-Za-z][A-Za-z0-9_-]{{1,19}}|[\u3400-\u9fff]{{1,8}})",
                      re.IGNORECASE)


def _statements(text: OwnText, j: Judgment, extra: tuple[tuple[str, str], ...], collecting: Sequence[str],
                topic: Topic, topics: Sequence[TopicTerms]) -> list[Evidence]:
    """Statement evidence of one own text (adjacency included: the topics it registers the paper as adjacent to)."""
    out: list[Evidence] = []
    read = f"{text.sections}\n{text.body}"
    negations = j.words("markers", "negation")
    for table, kind in STATEMENT_KINDS:
        # One statement of a kind per topic and text ("转 rag 线" is also "转 rag"); "不交给 rag" is none.
        denied = negations if kind in SPEAKS_FOR else ()
        said = dict(reversed(topic_statements(read, j.words("statements", table), j, extra, denied)))
        out += [Evidence(text.path, kind, name, j.weight(kind), said[name]) for name in sorted(said)]
    rest = read  # a bare "不进" that is part of "不进 inference" says nothing more
    for e in out:
        if e.kind == "exclusion":
            rest = rest.replace(e.detail, " ")
    generic = found_word(j.words("statements", "generic_exclusion"), rest,
                         j.words("statements", "generic_exclusion_except"))
    if generic:
        named = {e.topic for e in out if e.kind in (*SPEAKS_FOR, "taken_statement")}
        for name in (collecting or (topic.name,)):
            if name not in named:
                out.append(Evidence(text.path, "exclusion", name, j.weight("exclusion"), generic))
    # In a note written for X, a bare "已锚" speaks of X's own document: X has taken the paper.
    bare = found_word(j.words("statements", "generic_taken"), read)
    if bare and collecting and not any(e.kind == "taken_statement" for e in out):
        out += [Evidence(text.path, "taken_statement", name, j.weight("taken_statement"), bare)
                for name in collecting]
    background = found_word(j.words("statements", "background"), read)
    if background:
        out.append(Evidence(text.path, "background", topic.name, j.weight("background"), background))
    word = found_word(j.words("statements", "adjacency"), read)
    if word:
        named_topics = sorted(t.name for t in topics if vocabulary(t.names).hits(read))
        hits = vocabulary(_terms_of(topic, topics)).hits(text.body)
        out += [Evidence(text.path, "adjacency", name, j.weight("adjacency"), word)
                for name in (named_topics or ([topic.name] if hits else []))]
    return out


def _terms_of(topic: Topic, topics: Sequence[TopicTerms]) -> tuple[str, ...]:
    return next(t.terms for t in topics if t.name == topic.name)


def _vocabulary(text: OwnText, j: Judgment, topics: Sequence[TopicTerms]) -> list[Evidence]:
    out = []
    per_term = j.weight("vocabulary_term")
    # One line of a list, or one table row, of a note about several papers is thin evidence.
    cap = j.weight("vocabulary_per_listed_text" if text.listed else "vocabulary_per_text")
    for t in topics:
        hits = vocabulary(t.terms).hits(text.body)
        if hits:
            out.append(Evidence(text.path, "vocabulary", t.name, min(cap, per_term * len(hits)), ", ".join(hits)))
    return out


def gather(arxiv_id: str, mentions: Sequence[MentionView], entries: dict[tuple[int, int], EntryView],
           data: WindowData, topic: Topic, echoed: Sequence[MentionView] = ()) -> list[Evidence]:
    """Every piece of evidence about one paper. `echoed`: its mentions in published briefings dropped
    into the inbox; another topic's briefing declares what that topic did with the paper ("已锚"),
    while the briefed topic's own restates its earlier judgment and adds nothing."""
    j, topics = topic.judgment, known_topics(topic)
    extra = tuple((n, topic.name) for n in topic.names)
    evidence = reader_evidence(data.verdicts.get(arxiv_id, ()), topic.name, j)  # first: it decides before the rest
    evidence += _declared(arxiv_id, data, mentions, j, topics)
    for path in dict.fromkeys(m.path for m in mentions if m.kind not in ("paper_card", "work_queue")):
        evidence += _written_for(path, j, topics)
    for preamble in preambles(mentions, entries):
        evidence += _note_wide(preamble, extra, topic)
    source_of = {m.path: m.source_id for m in mentions}
    for text in own_texts(arxiv_id, mentions, entries, context_pattern(j)):
        collecting = tuple(e.topic for e in evidence
                           if e.path == text.path and e.kind in ("note_for_topic", "note_names_topic"))
        found = _text_evidence(text, extra, collecting, topic, topics)
        evidence += (*found, *subject_evidence(text, found, source_of.get(text.path), entries, j, topics))
    evidence += _declared_by_briefings(arxiv_id, echoed, entries, topic, topics)
    return list(dict.fromkeys(evidence))


def _written_for(path: str, j: Judgment, topics: tuple[TopicTerms, ...]) -> list[Evidence]:
    """The topics a note's file name says it is written for (note_for_topic) or names (note_names_topic)."""
    return [Evidence(path, kind, name, j.weight(kind), path.rsplit("/", 1)[-1])
            for name, kind in note_topics(path, j, topics)]


def _declared_by_briefings(arxiv_id: str, echoed: Sequence[MentionView], entries: dict[tuple[int, int], EntryView],
                           topic: Topic, topics: tuple[TopicTerms, ...]) -> list[Evidence]:
    """What other topics' briefings state about the paper: the topic each is written for, and its
    statements (never vocabulary, never anything about the briefed topic)."""
    j, extra, out = topic.judgment, tuple((n, topic.name) for n in topic.names), []
    for text in own_texts(arxiv_id, echoed, entries, context_pattern(j)):
        written_for = _written_for(text.path, j, topics)
        collecting = tuple(e.topic for e in written_for)
        out += written_for
        out += [e for e in _text_evidence(text, extra, collecting, topic, topics) if e.kind != "vocabulary"]
    return [e for e in out if e.topic != topic.name]


def first_entries(data: WindowData) -> dict[tuple[int, int], EntryView]:
    """Each window source's first entry, by (source id, 0): where a note's preamble is."""
    return {(e.source_id, e.ordinal): e for e in data.entries if e.ordinal == 0}


def gather_entries(entries: Sequence[EntryView], data: WindowData, topic: Topic,
                   firsts: Mapping[tuple[int, int], EntryView] | None = None) -> list[Evidence]:
    """Every piece of evidence about a thing without an arXiv id, from the note entries about it:
    the topic each note is written for, statements in its preamble, and the statements and
    vocabulary of each entry's own text, weighed as a paper's are. `firsts`: `first_entries(data)`,
    found once by a caller that gathers for many things of one window."""
    j, topics = topic.judgment, known_topics(topic)
    extra = tuple((n, topic.name) for n in topic.names)
    evidence: list[Evidence] = []
    firsts = first_entries(data) if firsts is None else firsts
    for path in dict.fromkeys(e.path for e in entries):
        evidence += _written_for(path, j, topics)
    for source_id in sorted({e.source_id for e in entries}):
        first = firsts.get((source_id, 0))
        if first is not None and first.label == "preamble" and not first.ids:
            evidence += _note_wide(OwnText(first.path, "", first.text), extra, topic)
    for entry in entries:
        collecting = tuple(e.topic for e in evidence
                           if e.path == entry.path and e.kind in ("note_for_topic", "note_names_topic"))
        evidence += _text_evidence(entry_own_text(entry), extra, collecting, topic, topics)
    return list(dict.fromkeys(evidence))


@lru_cache(maxsize=4096)
def _note_wide(text: OwnText, extra: tuple[tuple[str, str], ...], topic: Topic) -> tuple[Evidence, ...]:
    """Statements naming a topic in a note's preamble, about every paper the note lists (no bare
    "不收" or "邻接": those are about one entry)."""
    j = topic.judgment
    out = []
    for table, kind in (("owner", "owner_statement"), ("taken", "taken_statement"), ("exclusion", "exclusion")):
        said = dict(reversed(topic_statements(text.body, j.words("statements", table), j, extra)))
        out += [Evidence(text.path, kind, name, j.weight(kind), f"preamble: {said[name]}") for name in sorted(said)]
    return tuple(out)


# A pure function of its arguments (Evidence is immutable): consecutive windows of a backfill read
# mostly the same entries, and reading one text for every topic's statements and vocabulary is
# most of judging a paper.
@lru_cache(maxsize=8192)
def _text_evidence(text: OwnText, extra: tuple[tuple[str, str], ...], collecting: tuple[str, ...], topic: Topic,
                   topics: tuple[TopicTerms, ...]) -> tuple[Evidence, ...]:
    j = topic.judgment
    return (*_categorised(text, j, topics), *_statements(text, j, extra, collecting, topic, topics),
            *_vocabulary(text, j, topics))


def scores_of(evidence: Sequence[Evidence], j: Judgment) -> dict[str, float]:
    """Total weight per topic (vocabulary capped per paper); sorted by topic name."""
    totals: dict[str, float] = defaultdict(float)
    words: dict[str, float] = defaultdict(float)
    for e in evidence:
        if e.kind == "vocabulary":
            words[e.topic] += e.weight
        else:
            totals[e.topic] += e.weight
    for name, weight in words.items():
        totals[name] += min(weight, j.weight("vocabulary_per_paper"))
    return dict(sorted(totals.items()))


def _owned(topic: str, score: float) -> Reason:
    return Reason("owned", (("topic", topic), ("score", f"{score:g}")))


def _first(evidence: Sequence[Evidence], kinds: Sequence[str], topic: str) -> str:
    return next((e.detail for e in evidence if e.topic == topic and e.kind in kinds), "")


def decide(evidence: Sequence[Evidence], topic: Topic) -> Ownership:
    """The decision for `topic` T, with a reason naming what decided it. The rules, in order:
    0. a reader's verdict for T recorded by the cutoff (`tasks.judge.reader`) decides: `not-ours`
       not T's, `ours` T's, whatever else the sources say;
    1. a source speaks for T and another excludes T: undecided, adjacent (the reason says so);
    2. a source excludes T: not T's;
    3. a source speaks for T, or a card, the queue, a digest tag or a source declares T primary: T's.
       Declared evidence beats vocabulary: a declared category that is no topic ("[other]",
       "engineering") holds the paper for no topic, and still says it is not T's;
    4. another topic X holds it as primary and has anchored it: T needs a source speaking for T;
       with only a secondary category or an adjacency registration for T it is adjacent (the
       reason names X); with neither, X's and not T's;
    5. another topic is declared primary (not anchored there): T's when T is a declared secondary
       (主分类邻接), adjacent when a source registers it as adjacent to T, else not T's;
    6. T is a declared secondary (the primary undecided, or no topic): T's;
    7. T's own evidence reaches `min_owner`: T's (adjacent when a source registers it so, or files
       it as background reading);
    8. a source registers it as adjacent to T: adjacent; otherwise not T's."""
    j, me = topic.judgment, topic.name
    scores = scores_of(evidence, j)
    kinds = {e.kind for e in evidence if e.topic == me}
    others = [e for e in evidence if e.topic != me]
    known = {t.name for t in known_topics(topic)}
    # A declared category that is no topic ("[other]", "engineering") anchors the paper nowhere, but
    # still declares it another's: T's vocabulary does not outweigh it.
    held = sorted({e.topic for e in others if e.kind in HOLDS})
    prepared = {e.topic for e in others if e.kind == "note_for_topic"}
    anchored_by = sorted({e.topic for e in others if e.kind == "taken_statement"} & ({*held} | prepared) & known)
    speaks, excluded, adjacent = bool(kinds & set(SPEAKS_FOR)), "exclusion" in kinds, "adjacency" in kinds
    background = "background" in kinds
    secondary = bool(kinds & set(SECONDARY))
    result = Ownership(list(evidence), scores)

    def verdict(v: Verdict, owner: str | None, *why: Reason) -> Ownership:
        result.verdict, result.owner, result.reason = v, owner, why
        return result

    reader = reader_decision(evidence, me)
    if reader is not None:
        return verdict(reader[0], me if reader[0] is Verdict.RELEVANT else None, reader[1])
    if speaks and excluded:
        return verdict(Verdict.ADJACENT, None, Reason("disputed", (
            ("topic", me), ("said", _first(evidence, SPEAKS_FOR, me)), ("against", _first(evidence, ("exclusion",), me)))))
    if excluded:
        return verdict(Verdict.NONE, None, Reason("excluded", (("topic", me),)))
    if speaks:
        return verdict(Verdict.RELEVANT, me, Reason("for_topic", (("topic", me), ("said", _first(evidence, SPEAKS_FOR, me)))))
    if kinds & set(DECLARED):
        return verdict(Verdict.RELEVANT, me, _owned(me, scores[me]))
    if anchored_by:
        holder = "/".join(anchored_by)
        if secondary or adjacent:
            return verdict(Verdict.ADJACENT, anchored_by[0], Reason("held_elsewhere", (("primary", holder), ("topic", me))))
        return verdict(Verdict.NONE, anchored_by[0], Reason("taken", (("topics", holder),)))
    enough = scores.get(me, 0.0) >= j.weight("min_owner")
    if held:
        # The decision rests on a topic that holds it; a category that is no topic rests it on nothing.
        holding = next((h for h in held if h in known), None)
        if secondary:
            owner = holding or (me if enough else None)
            return verdict(Verdict.RELEVANT, owner, Reason("secondary", (("primary", "/".join(held)), ("topic", me))))
        if adjacent:
            return verdict(Verdict.ADJACENT, holding, Reason("adjacent_declared"))
        return verdict(Verdict.NONE, holding, Reason("primary_elsewhere", (("topics", "/".join(held)),)))
    if secondary:
        named = "/".join(sorted({e.topic for e in others if e.kind in DECLARED}))
        why = Reason("secondary", (("primary", named), ("topic", me))) if named else Reason("secondary_only", (("topic", me),))
        return verdict(Verdict.RELEVANT, me if enough else None, why)
    if enough:
        if adjacent:
            return verdict(Verdict.ADJACENT, me, Reason("adjacent_declared"))
        if background:
            return verdict(Verdict.ADJACENT, me, Reason("background", (("topic", me),)))
        return verdict(Verdict.RELEVANT, me, _owned(me, scores[me]))
    if adjacent:
        return verdict(Verdict.ADJACENT, None, Reason("adjacent_declared"))
    return verdict(Verdict.NONE, None, Reason("untouched"))


def decision_text(verdict: Verdict, topic: str) -> str:
    """The decision for `topic` in words: the topic's, adjacent to it, or not its."""
    return {Verdict.RELEVANT: f"{topic}'s", Verdict.ADJACENT: f"adjacent to {topic}"}.get(verdict, f"not {topic}'s")


def judge_ownership(arxiv_id: str, mentions: Sequence[MentionView], entries: dict[tuple[int, int], EntryView],
                    data: WindowData, topic: Topic, echoed: Sequence[MentionView] = ()) -> Ownership:
    return decide(gather(arxiv_id, mentions, entries, data, topic, echoed), topic)
