"""Generated two-topic workspaces: papers shared, handed over, excluded, primary elsewhere, or only
in a digest table, each workspace carrying the answers it was generated from.

Contract: `make_workspace(root, spec)` writes, for the topics A and B of `spec.pair`, on DAY:
- SHARED_CARD: a card with primary A and secondary B, and a reading note using both vocabularies:
  NET-new for A and for B;
- SHARED_HANDOFF: an entry of A's prep note in A's vocabulary saying B's document lacks it and
  handing it to B: NET-new for both;
- HANDED (failure class 1): in an entry of A's prep note about several papers, "anchored in A.md
  today; not in B.md yet, handing it to B"; A.md anchors it: already anchored for A, NET-new for B;
- HELD (failure class 2): a queue row with primary A and secondary B (a B word in its title), which
  the same entry of A's prep note says A has anchored; A.md anchors it: anchored for A, 🟡
  adjacent for B (no source speaks for B);
- EXCLUDED: an entry of B's prep note in A's vocabulary that says it is not for A: B's only;
- TABLE_THIN / TABLE_HANDOFF: rows of a digest table among rows of other topics full of both
  vocabularies: one row with a word of each (nobody's), one handing its paper to B (B's only);
- OWN_A / OWN_B: entries in one topic's vocabulary: that topic's only;
- EARLIER (the day before, before the previous cutoff): A's, in a 48-hour `--since` window only.
It returns the `Answers` (status per topic and paper, for the day's window and the 48-hour one) and
writes them as the workspace's answers file (tests/generate/files.py: never ingested).
`spec` varies the language (zh/en), the heading style (# .. ####, **bold**, numbered), the form of
the entry about several papers (table, list, prose) and, by its seed, the wording of the statements
and the order of the entries. No randomness beyond the seed: the same spec gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path

from tests.generate.documents import (
    KNOWLEDGE,
    QUEUE,
    card,
    card_path,
    knowledge_document,
    queue_row,
    queue_snapshot,
)
from tests.generate.files import write_answers, write_file

DAY = dt.date(2026, 10, 5)
BEFORE = DAY - dt.timedelta(days=1)
PAIRS = (("inference", "llm-infra"), ("rag", "agents"), ("evaluation", "inference"))
LANGS = ("zh", "en")
HEADINGS = ("atx1", "atx2", "atx3", "atx4", "bold", "numbered")
FORMS = ("table", "list", "prose")
# Words of each topic's vocabulary (tasks/config/topics.toml), none of them another topic's here.
VOCABULARY = {
    "inference": ("vLLM", "KV cache", "TTFT", "prefill", "speculative decoding"),
    "llm-infra": ("NCCL", "RDMA", "checkpoint", "cluster"),
    "rag": ("retrieval", "reranker", "vector database", "chunking"),
    "agents": ("tool use", "MCP", "planner", "multi-agent"),
    "evaluation": ("benchmark", "leaderboard", "LLM-as-a-judge"),
}
IDS = {
    "shared_card": "2610.90001", "shared_handoff": "2610.90002", "handed": "2610.90003", "held": "2610.90004",
    "excluded": "2610.90005", "table_thin": "2610.90006", "table_handoff": "2610.90007", "own_a": "2610.90008",
    "own_b": "2610.90009", "earlier": "2610.90010", "old_a": "2609.80001", "old_b": "2609.80002",
}
FILLERS = tuple(f"2610.9{n:04d}" for n in range(101, 107))
NAMES = {
    "shared_card": "Confluence", "shared_handoff": "Tandem", "handed": "Relay", "held": "Keystone",
    "excluded": "Decoy", "table_thin": "Glimpse", "table_handoff": "Baton", "own_a": "Homestead",
    "own_b": "Outpost", "earlier": "Yesterday",
}
# Statement wordings per language: {a} and {b} are the topics, each matched by judgment.toml templates.
WORDS = {
    "zh": {
        "anchored": ("今天已在 {a}.md 锚定", "已锚入 {a}.md"),
        "missing": ("{b}.md 还没有", "{b} 还没有", "{b}.md 里还没有"),
        "handoff": ("交给今晚 {b} 的简报", "交给 {b}", "转给 {b}"),
        "exclusion": ("不进 {a}", "{a} 不收"),
        "carried": "今日承接", "radar": "今日候选", "reading": "阅读笔记", "prep": "E1 预备",
        "about": "这篇讲 {w1} 与 {w2}，数字很完整。",
    },
    "en": {
        "anchored": ("anchored in {a}.md today", "already anchored in {a}"),
        "missing": ("not in {b}.md yet", "{b}.md does not have it", "missing from {b}.md"),
        "handoff": ("handing it over to {b} for tonight", "handing it to {b}", "for the {b} briefing"),
        "exclusion": ("not for {a}", "not {a}"),
        "carried": "Carried over today", "radar": "Candidates today", "reading": "Reading notes", "prep": "E1 prep",
        "about": "This one is about {w1} and {w2}, with full numbers.",
    },
}


@dataclass(frozen=True)
class Spec:
    pair: tuple[str, str]
    lang: str
    heading: str
    form: str
    seed: int


@dataclass
class Answers:
    """Status per topic and paper: in the day's window, and in the 48-hour window since BEFORE's start."""

    day: dict[str, dict[str, str]] = field(default_factory=dict)
    since: dict[str, dict[str, str]] = field(default_factory=dict)

    def net_new(self, topic: str, window: str = "day") -> set[str]:
        table = self.day if window == "day" else self.since
        return {i for i, status in table[topic].items() if status == "net_new"}


def specs(count: int) -> list[Spec]:
    """`count` specs covering every pair, language, heading style and form (a seeded parametrisation)."""
    rng = random.Random(21)
    out = []
    for k in range(count):
        out.append(Spec(PAIRS[k % len(PAIRS)], LANGS[k % len(LANGS)], HEADINGS[k % len(HEADINGS)],
                        FORMS[k % len(FORMS)], rng.randrange(10_000)))
    return out


def _cite(spec: Spec, arxiv_id: str) -> str:
    return f"（arXiv:{arxiv_id}）" if spec.lang == "zh" else f" (arXiv:{arxiv_id})"


def _entry(spec: Spec, n: int, title: str, lines: list[str], prose: bool = False) -> str:
    """One entry in the spec's heading style: its heading (naming its paper when `title` does), then
    its lines as list items (table rows as rows), or, with `prose`, as one paragraph."""
    indent = "   " if spec.heading == "numbered" else ""
    if spec.heading == "bold":
        head = f"**{title}**"
    elif spec.heading == "numbered":
        head = f"{n}. {title}"
    else:
        head = "#" * int(spec.heading[-1]) + f" {title}"
    if prose:
        body = [indent + " ".join(lines)]
    else:
        body = [indent + (line if line.startswith("|") else f"- {line}") for line in lines]
    return "\n".join([head, "", *body]) + "\n"


def _note(spec: Spec, title: str, entries: list[str], rng: random.Random) -> str:
    rng.shuffle(entries)
    head = [] if spec.heading == "atx1" else [f"# {title}", ""]
    return "\n".join(head) + "\n".join(entries)


def _words(topic: str, rng: random.Random, k: int) -> list[str]:
    return rng.sample(VOCABULARY[topic], k)


def _say(spec: Spec, rng: random.Random, kind: str, a: str, b: str) -> str:
    return rng.choice(WORDS[spec.lang][kind]).format(a=a, b=b)


def _carried(spec: Spec, rng: random.Random, a: str, b: str) -> list[str]:
    """The lines of A's entry about HANDED and HELD: table rows, list items or the sentences of a paragraph."""
    sep = "；" if spec.lang == "zh" else "; "
    handed = sep.join([_say(spec, rng, "anchored", a, b), _say(spec, rng, "missing", a, b),
                       _say(spec, rng, "handoff", a, b)])
    held = _say(spec, rng, "anchored", a, b)
    ids, names = (IDS["handed"], IDS["held"]), (NAMES["handed"], NAMES["held"])
    if spec.form == "table":
        return ["| arXiv | name | note |", "|---|---|---|", f"| {ids[0]} | {names[0]} | {handed} |",
                f"| {ids[1]} | {names[1]} | {held} |"]
    end = "。" if spec.lang == "zh" else "."
    return [f"{names[0]}{_cite(spec, ids[0])}: {handed}{end}", f"{names[1]}{_cite(spec, ids[1])}: {held}{end}"]


def make_workspace(root: Path, spec: Spec) -> Answers:
    """Write the workspace for `spec` under `root`; return (and write) its answers."""
    a, b = spec.pair
    rng = random.Random(spec.seed)
    zh = spec.lang == "zh"
    w = WORDS[spec.lang]

    def about(topic: str, other: str | None = None) -> str:
        first, second = _words(topic, rng, 2)
        if other is not None:
            second = _words(other, rng, 1)[0]
        return w["about"].format(w1=first, w2=second)

    def titled(key: str) -> str:
        return f"{NAMES[key]}{_cite(spec, IDS[key])}"

    prep_a = [
        _entry(spec, 1, titled("shared_handoff"), [about(a), " ".join(_words(a, rng, 2)),
                                                  _say(spec, rng, "missing", a, b) + ("，" if zh else ", ")
                                                  + _say(spec, rng, "handoff", a, b)]),
        _entry(spec, 2, w["carried"], _carried(spec, rng, a, b), prose=spec.form == "prose"),
    ]
    prep_b = [
        _entry(spec, 1, titled("excluded"), [about(a), " ".join(_words(a, rng, 3)), " ".join(_words(b, rng, 2)),
                                            _say(spec, rng, "exclusion", a, b)]),
        _entry(spec, 2, titled("own_b"), [about(b), " ".join(_words(b, rng, 3))]),
    ]
    reading = [
        _entry(spec, 1, titled("shared_card"), [about(a, b), " ".join([*_words(a, rng, 2), *_words(b, rng, 2)])]),
        _entry(spec, 2, titled("own_a"), [about(a), " ".join(_words(a, rng, 3))]),
    ]
    rows = [f"| R{k} | {fid} | Vidora{k} | video generation: {' '.join([*_words(a, rng, 2), *_words(b, rng, 2)])} |"
            for k, fid in enumerate(FILLERS, 3)]
    rows += [f"| R1 | {IDS['table_thin']} | {NAMES['table_thin']} | {_words(a, rng, 1)[0]}, {_words(b, rng, 1)[0]} |",
             f"| R2 | {IDS['table_handoff']} | {NAMES['table_handoff']} | video; {_say(spec, rng, 'handoff', a, b)} |"]
    rng.shuffle(rows)
    radar = _entry(spec, 1, w["radar"], ["| # | arXiv | name | note |", "|---|---|---|---|", *rows])
    earlier = _entry(spec, 1, titled("earlier"), [about(a), " ".join(_words(a, rng, 3))])
    stamp = DAY.isoformat()
    files = {
        f"inbox/nina/{stamp}-nina-{a}-e1prep.md": _note(spec, f"{a} · {w['prep']}", prep_a, rng),
        f"inbox/omar/{stamp}-omar-{b}-e1prep.md": _note(spec, f"{b} · {w['prep']}", prep_b, rng),
        f"inbox/jay/{stamp}T1030-jay-reading.md": _note(spec, w["reading"], reading, rng),
        f"inbox/tom/{stamp}-0900-tom-radar.md": _note(spec, "Radar", [radar], rng),
        f"inbox/jay/{BEFORE.isoformat()}T1400-jay-reading.md": _note(spec, w["reading"], [earlier], rng),
        card_path(2001, IDS["shared_card"]): card(IDS["shared_card"], NAMES["shared_card"], a, [b], DAY,
                                                  f"**TL;DR** {about(a, b)}\n"),
        QUEUE: "\n".join(["# Work Queue", "", *queue_snapshot(DAY, [queue_row(
            1, IDS["held"], f"{NAMES['held']}: {_words(b, rng, 1)[0]} at scale", a, b, "new")])]) + "\n",
        f"{KNOWLEDGE}/{a}.md": knowledge_document(a, [
            (IDS["handed"], NAMES["handed"], DAY), (IDS["held"], NAMES["held"], DAY),
            (IDS["old_a"], "Old A", DAY - dt.timedelta(days=30))], None),
        f"{KNOWLEDGE}/{b}.md": knowledge_document(b, [(IDS["old_b"], "Old B", DAY - dt.timedelta(days=30))], None),
    }
    for rel, text in files.items():
        write_file(root, rel, text)
    answers = _answers(a, b)
    write_answers(root, {"day": answers.day, "since": answers.since})
    return answers


def _answers(a: str, b: str) -> Answers:
    off = dict.fromkeys((IDS["table_thin"], *FILLERS), "off_topic")
    day = {
        a: {**off, IDS["shared_card"]: "net_new", IDS["shared_handoff"]: "net_new", IDS["own_a"]: "net_new",
            IDS["handed"]: "already_anchored", IDS["held"]: "already_anchored", IDS["excluded"]: "off_topic",
            IDS["table_handoff"]: "off_topic", IDS["own_b"]: "off_topic"},
        b: {**off, IDS["shared_card"]: "net_new", IDS["shared_handoff"]: "net_new", IDS["handed"]: "net_new",
            IDS["held"]: "adjacent", IDS["excluded"]: "net_new", IDS["table_handoff"]: "net_new",
            IDS["own_b"]: "net_new", IDS["own_a"]: "off_topic"},
    }
    since = {a: {**day[a], IDS["earlier"]: "net_new"}, b: {**day[b], IDS["earlier"]: "off_topic"}}
    return Answers(day, since)
