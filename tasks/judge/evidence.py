"""Which topic owns a paper, from the evidence of every mention and declaration, for every known topic.

Evidence (kind, weight from `judgment.toml [weights]`):
- card_primary / card_secondary, queue_primary / queue_secondary: declared categories;
- note_for_topic / note_names_topic: the topic a note is written for (its file name);
- owner_statement, taken_statement, stated_primary / stated_secondary, exclusion: statements in
  the paper's own text or the headings of the section it sits in ("归属 rag", "已在 evaluation.md
  锚定", "主分类 llm-infra", "不进 inference");
- vocabulary: distinct terms of a topic's vocabulary in the paper's own text only: its card (title
  and TL;DR), its queue row, its table row, or in a note entry its heading and the lines that name
  it (all of the entry when it names no other paper), never a neighbouring row, line or entry;
- adjacency: the source registers the paper as adjacent to a topic (🟡, held back; no weight).
The topic with the largest total owns the paper (a tie owns nothing, nor does a total below
`min_owner`). For the briefed topic T the verdict is then (`decide`):
1. T owns it: NET-new, unless a source holds it back as adjacent and nothing declares it T's;
2. a card, the queue or a source declares T a secondary category and no statement excludes T or
   says another topic has taken it: NET-new (主分类邻接);
3. a source registers it as adjacent to T, with nothing excluding T or saying it was taken: adjacent;
4. otherwise another topic's paper (off-topic).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from predigest.judgment import Judgment, TopicTerms
from predigest.topics import Topic
from tasks.judge.own_text import OwnText, entry_own_text, note_topics, own_texts, preambles
from tasks.judge.relevance import Verdict
from tasks.judge.statements import found_word, topic_statements
from tasks.judge.terms import vocabulary
from tasks.model.briefing import Evidence, Reason
from tasks.model.window import EntryView, MentionView, WindowData


@dataclass
class Ownership:
    """The evidence about one paper, the totals per topic and the verdict for the briefed topic."""

    evidence: list[Evidence] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    owner: str | None = None
    verdict: Verdict = Verdict.NONE
    reason: tuple[Reason, ...] = ()


DECLARED = ("card_primary", "queue_primary", "stated_primary")
SECONDARY = ("card_secondary", "queue_secondary", "stated_secondary")
STATEMENTS = ("owner_statement", "taken_statement")


def known_topics(topic: Topic) -> tuple[TopicTerms, ...]:
    """Every topic the judgment knows, the briefed one included even when unconfigured."""
    topics = list(topic.judgment.topics)
    if not any(t.name == topic.name for t in topics):
        topics.append(TopicTerms(topic.name, topic.names, tuple(dict.fromkeys((*topic.names, *topic.terms)))))
    return tuple(topics)


def _category(name: str, topics: Sequence[TopicTerms]) -> str:
    """A declared category as a topic name (an alias maps to its topic; an unknown category stays itself)."""
    lowered = name.strip().lower()
    return next((t.name for t in topics if lowered in {n.lower() for n in t.names}), lowered)


def _declared(arxiv_id: str, data: WindowData, mentions: Sequence[MentionView], j: Judgment,
              topics: Sequence[TopicTerms]) -> list[Evidence]:
    out: list[Evidence] = []
    for card in data.cards.get(arxiv_id, []):
        if card.primary:
            out.append(Evidence(card.path, "card_primary", _category(card.primary, topics), j.weight("card_primary")))
        out += [Evidence(card.path, "card_secondary", _category(s, topics), j.weight("card_secondary"))
                for s in card.secondary if s.strip()]
    queue_path = next((m.path for m in mentions if m.kind == "work_queue"), "work_queue")
    for primary, secondary in dict.fromkeys(data.queue_categories.get(arxiv_id, [])):
        if primary:
            out.append(Evidence(queue_path, "queue_primary", _category(primary, topics), j.weight("queue_primary")))
        out += [Evidence(queue_path, "queue_secondary", _category(s, topics), j.weight("queue_secondary"))
                for s in (secondary or "").split(",") if s.strip()]
    return out


def _statements(text: OwnText, j: Judgment, extra: tuple[tuple[str, str], ...], collecting: Sequence[str],
                topic: Topic, topics: Sequence[TopicTerms]) -> list[Evidence]:
    """Statement evidence of one own text (adjacency included: the topics it registers the paper as adjacent to)."""
    out: list[Evidence] = []
    read = f"{text.sections}\n{text.body}"
    for table, kind in (("owner", "owner_statement"), ("taken", "taken_statement"), ("primary", "stated_primary"),
                        ("secondary", "stated_secondary"), ("exclusion", "exclusion")):
        # One statement of a kind per topic and text ("转 rag 线" is also "转 rag").
        said = dict(reversed(topic_statements(read, j.words("statements", table), j, extra)))
        out += [Evidence(text.path, kind, name, j.weight(kind), said[name]) for name in sorted(said)]
    rest = read  # a bare "不进" that is part of "不进 inference" says nothing more
    for e in out:
        if e.kind == "exclusion":
            rest = rest.replace(e.detail, " ")
    generic = found_word(j.words("statements", "generic_exclusion"), rest,
                         j.words("statements", "generic_exclusion_except"))
    if generic:
        named = {e.topic for e in out if e.kind in ("owner_statement", "taken_statement")}
        for name in (collecting or (topic.name,)):
            if name not in named:
                out.append(Evidence(text.path, "exclusion", name, j.weight("exclusion"), generic))
    # In a note written for X, a bare "已锚" speaks of X's own document: X has taken the paper.
    bare = found_word(j.words("statements", "generic_taken"), read)
    if bare and collecting and not any(e.kind == "taken_statement" for e in out):
        out += [Evidence(text.path, "taken_statement", name, j.weight("taken_statement"), bare)
                for name in collecting]
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
           data: WindowData, topic: Topic) -> list[Evidence]:
    """Every piece of evidence about one paper."""
    j, topics = topic.judgment, known_topics(topic)
    extra = tuple((n, topic.name) for n in topic.names)
    evidence = _declared(arxiv_id, data, mentions, j, topics)
    for path in dict.fromkeys(m.path for m in mentions if m.kind not in ("paper_card", "work_queue")):
        for name, kind in note_topics(path, j, topics):
            evidence.append(Evidence(path, kind, name, j.weight(kind), path.rsplit("/", 1)[-1]))
    for preamble in preambles(mentions, entries):
        evidence += _note_wide(preamble, extra, topic)
    for text in own_texts(arxiv_id, mentions, entries):
        collecting = tuple(e.topic for e in evidence
                           if e.path == text.path and e.kind in ("note_for_topic", "note_names_topic"))
        evidence += _text_evidence(text, extra, collecting, topic, topics)
    return list(dict.fromkeys(evidence))


def gather_entries(entries: Sequence[EntryView], data: WindowData, topic: Topic) -> list[Evidence]:
    """Every piece of evidence about a thing without an arXiv id, from the note entries about it:
    the topic each note is written for, statements in its preamble, and the statements and
    vocabulary of each entry's own text, weighed as a paper's are."""
    j, topics = topic.judgment, known_topics(topic)
    extra = tuple((n, topic.name) for n in topic.names)
    evidence: list[Evidence] = []
    firsts = {(e.source_id, e.ordinal): e for e in data.entries if e.ordinal == 0}
    for path in dict.fromkeys(e.path for e in entries):
        evidence += [Evidence(path, kind, name, j.weight(kind), path.rsplit("/", 1)[-1])
                     for name, kind in note_topics(path, j, topics)]
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
    return (*_statements(text, j, extra, collecting, topic, topics), *_vocabulary(text, j, topics))


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


def owner_of(scores: dict[str, float], j: Judgment) -> str | None:
    if not scores:
        return None
    top = max(scores.values())
    leaders = [name for name, score in scores.items() if score == top]
    return leaders[0] if len(leaders) == 1 and top >= j.weight("min_owner") else None


def _owned(topic: str, score: float) -> Reason:
    return Reason("owned", (("topic", topic), ("score", f"{score:g}")))


def decide(evidence: Sequence[Evidence], topic: Topic) -> Ownership:
    """The verdict for `topic` (see the module docstring), with a reason naming the deciding evidence."""
    j, me = topic.judgment, topic.name
    scores = scores_of(evidence, j)
    adjacent = {e.topic for e in evidence if e.kind == "adjacency"}
    owner = owner_of(scores, j)
    mine = [e for e in evidence if e.topic == me]
    kinds = {e.kind for e in mine}
    excluded = "exclusion" in kinds
    taken = sorted({e.topic for e in evidence if e.kind == "taken_statement" and e.topic != me})
    result = Ownership(list(evidence), scores, owner)
    if owner == me:
        declared = kinds & {*DECLARED, *SECONDARY, *STATEMENTS}
        if me in adjacent and not declared:
            result.verdict, result.reason = Verdict.ADJACENT, (Reason("adjacent_declared"),)
        else:
            result.verdict, result.reason = Verdict.RELEVANT, (_owned(me, scores[me]),)
    elif kinds & set(SECONDARY) and not excluded and not taken:
        primary = owner or "/".join(sorted({e.topic for e in evidence if e.kind in DECLARED}))
        why = Reason("secondary", (("primary", primary), ("topic", me))) if primary else Reason("secondary_only", (("topic", me),))
        result.verdict, result.reason = Verdict.RELEVANT, (why,)
    elif me in adjacent and not excluded and not taken:
        result.verdict, result.reason = Verdict.ADJACENT, (Reason("adjacent_declared"),)
    elif taken:
        result.verdict, result.reason = Verdict.NONE, (Reason("taken", (("topics", "/".join(taken)),)),)
    elif owner is not None:
        result.verdict, result.reason = Verdict.NONE, (_owned(owner, scores[owner]),)
    elif excluded:
        result.verdict, result.reason = Verdict.NONE, (Reason("excluded", (("topic", me),)),)
    else:
        result.verdict, result.reason = Verdict.NONE, (Reason("untouched"),)
    return result


def judge_ownership(arxiv_id: str, mentions: Sequence[MentionView], entries: dict[tuple[int, int], EntryView],
                    data: WindowData, topic: Topic) -> Ownership:
    return decide(gather(arxiv_id, mentions, entries, data, topic), topic)
