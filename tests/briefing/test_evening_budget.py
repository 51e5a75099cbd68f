"""Contract: a source's work is bounded while the evening judges and verifies it, too, in counted
units (Settings.source_budget_units, `tasks.common.limits.SourceBudgets`).

- Each window source has its own budget, spent only by its own units of work (a paper it names
  first, its engineering candidates and their comparisons, each of its entries a verification check
  reads), checked between units from its second on. A budget of K units judges exactly the
  source's first K papers (in window order), drops the rest of what it would have contributed (its
  later papers, its increments, its verifications), and its row among the checked sources says
  where it was cut, in both languages, in markdown and in the JSON twin; every other source is
  judged and verified whole.
- Cut while verifying, a source keeps what the checks raised from its first K entries.
- A window's evening charges each source once for judging and once for verifying: rendering a
  briefing through the stages spends exactly the units of `judge_evening` plus one observation
  (its verifications are observed when derived and read back, never observed again).
- End to end: a generated note of thousands of engineering entries that all name one another
  (each increment lists all the others: quadratic) is named as cut short within a small budget,
  and the other source's items are still there; the quadratic merge is what the budget cuts.
- The cut never depends on time: the same pathological workspace briefed again on a clock that
  jumps a minute at every reading (a machine under any load) publishes the same bytes.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Engine

from db.engine import get_engine, session_scope
from tasks.briefing.assemble import build_content, judge_evening
from tasks.common.limits import JUDGING, VERIFYING, CutShort, SourceBudgets
from tasks.config.settings import Settings
from tasks.config.topics import Topic
from tasks.model.judged import BriefingContent
from tasks.model.window_views import WindowData
from tasks.render.labels import LABELS
from tasks.render.markdown import render_markdown
from tasks.render.twin import render_json
from tasks.stages import derive
from tasks.stages.briefed_topics import topics_for, window_of
from tasks.stages.briefings import render_briefing
from tasks.verify.observe import observe_window, observed
from tasks.window.collect import collect_window
from tasks.window.papers import judge_window
from tests.helpers import ingest_all
from tests.ingest.hostile import DAY, published, run_evening

KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
BIG = "inbox/amy/2026-10-09-1000-amy-big.md"
SMALL = "inbox/bob/2026-10-09-1100-bob-small.md"
BIG_IDS = [f"2609.{10001 + k}" for k in range(30)]
SMALL_IDS = ["2610.90001", "2610.90002"]


def _entry(n: int, arxiv_id: str, name: str) -> str:
    return (f"## {n}. {name} {n}: a KV cache scheduler for vLLM inference serving (arXiv:{arxiv_id})\n\n"
            f"- throughput {n + 1}.5× on H100 for LLM inference\n- 待核实：{n + 1}.5× 只在单卡上测过，多卡 serving 未验证\n")


def _workspace(root: Path) -> Path:
    knowledge = root / "organized" / "knowledge"
    knowledge.mkdir(parents=True)
    (knowledge / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    for path, ids, name in ((BIG, BIG_IDS, "Amysched"), (SMALL, SMALL_IDS, "Bobsched")):
        note = root / path
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text("\n".join(_entry(n, i, name) for n, i in enumerate(ids, 1)), encoding="utf-8")
    return root


def _window(settings: Settings, root: Path) -> tuple[WindowData, Topic]:
    ref = ingest_all(settings, _workspace(root))
    (topic,) = topics_for(settings, root, ["inference"])
    with session_scope(get_engine(settings)) as session:
        return collect_window(session, ref.id, topic.name, window_of(topic, DAY), topic.schedule), topic


def _content(data: WindowData, topic: Topic, budgets: SourceBudgets | None = None) -> BriefingContent:
    """The briefing's content with the window's own verifications, observed once (as the stages do)."""
    budgets = budgets or SourceBudgets(None)
    papers = judge_evening(data, topic, budgets)
    tracked = observed(data, papers, topic, ["inference"], (), budgets)
    return build_content(data, topic, ["inference"], tracked, judged=papers, budgets=budgets)


def test_a_slow_source_spends_its_own_budget_never_another_s() -> None:
    budgets = SourceBudgets(10)
    done = []
    units = [(p, k) for k in range(1, 9) for p in ("slow", "fast")]
    for path, unit in budgets.each(units, "papers", lambda u: (u[0], u[1] - 1)):
        done.append((path, unit))
        if path == "slow":
            budgets.charge(path, 4)  # each of its units does 5 units of work (comparisons, say), the others' 1
    assert done == [("slow", 1), ("fast", 1), ("slow", 2), ("fast", 2), *[("fast", k) for k in range(3, 9)]]
    assert budgets.cut == {"slow": CutShort("papers", 3, 2, 10)} and budgets.cut["slow"].stage == JUDGING
    assert list(budgets.each(["slow", "fast"], "hedges", lambda p: (p, 0))) == ["fast"]  # skipped in every step after


def test_a_source_over_its_budget_while_judging_keeps_its_first_papers_and_says_so(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    data, topic = _window(settings, tmp_path / "ws")
    # The small source's whole evening is a few units (2 papers, its candidates, 8 entry reads by the checks).
    budgets = SourceBudgets(20)
    content = _content(data, topic, budgets)

    assert budgets.cut == {BIG: CutShort("papers", 21, 20, 20)}
    judged = {p.arxiv_id for p in content.papers if p.arxiv_id}
    assert judged == set(BIG_IDS[:20]) | set(SMALL_IDS)
    # Nothing of the cut source is verified; the other source's hedges all are.
    assert {v.sources for v in content.verifications} == {(SMALL,)}
    assert {v.subject for v in content.verifications} == set(SMALL_IDS)

    rows = {s.path: s for s in content.sources}
    # Left undone after the cut, and said so: its 10 later papers (only it names them), its
    # engineering candidates (one unit), and each of its 30 entries the 4 checks would have read.
    left = budgets.left[BIG]
    assert left == 10 + 1 + 4 * len(BIG_IDS)
    said = {"en": "cut short: over its 20-unit work budget while judging the papers it names, at entry 21; "
                  f"entries judged: 20; left undone after it: {left} (papers it names first, engineering candidates, "
                  "entries to verify)",
            "zh": f"超出 20 单位工作量预算：判断所提论文到第 21 条时截断，已判断 20 条；其后未做 {left} 项（所提论文、"
                  "工程候选、待核对条目）"}
    for lang, text in said.items():
        assert LABELS[lang]["src_limited"].format(what=text) in rows[BIG].texts(lang).summary
        assert text not in rows[SMALL].texts(lang).summary
        md, twin = render_markdown(content, lang), json.loads(render_json(content, lang))
        assert text in md
        (big,) = [s for s in twin["sources"] if s["path"] == BIG]
        assert text in big["summary"]
        assert not any(text in s["summary"] for s in twin["sources"] if s["path"] != BIG)


def test_a_source_over_its_budget_while_verifying_keeps_what_its_first_entries_raised(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    data, topic = _window(settings, tmp_path / "ws")
    papers = judge_window(data, topic)
    # The checks read the small source's 2 entries 4 times (hedges, numbers, promises, settlements): 8 units.
    budgets = SourceBudgets(10)
    observations = observe_window(data, papers, topic, ["inference"], (), budgets)

    assert budgets.cut == {BIG: CutShort("hedges", 11, 10, 10)} and budgets.cut[BIG].stage == VERIFYING
    raised = {(o.source_path, o.subject) for o in observations if o.kind == "hedge" and o.action == "raised"}
    assert raised == {(BIG, i) for i in BIG_IDS[:10]} | {(SMALL, i) for i in SMALL_IDS}


def test_unbounded_and_default_budgets_change_nothing(tmp_path: Path, settings: Settings, clean_db: Engine) -> None:
    data, topic = _window(settings, tmp_path / "ws")
    plain = _content(data, topic)
    budgets = SourceBudgets(settings.source_budget_units)
    bounded = _content(data, topic, budgets)
    assert not budgets.cut and plain.verifications
    assert render_json(bounded, "en") == render_json(plain, "en")
    assert render_markdown(bounded, "zh") == render_markdown(plain, "zh")


def test_the_stages_charge_a_window_s_verification_once(
    tmp_path: Path, settings: Settings, clean_db: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, topic = _window(settings, tmp_path / "ws")
    once = SourceBudgets(None)
    observe_window(data, judge_evening(data, topic, once), topic, ["inference"], (), once)

    spent: list[SourceBudgets] = []

    def recorded(units: int | None) -> SourceBudgets:
        spent.append(SourceBudgets(units))
        return spent[-1]

    monkeypatch.setattr(derive, "SourceBudgets", recorded)
    ref = ingest_all(settings, tmp_path / "ws")
    md, _ = render_briefing(settings, ref, topic, window_of(topic, DAY))
    (budgets,) = spent  # the window is collected and judged once, for its derivation and its briefing
    assert budgets.total == once.total and budgets.total[SMALL] > 2
    assert SMALL_IDS[0] in md


# Engineering entries of one coined system that all name one another: each increment lists the others.
PATHOLOGICAL = 3000
BUDGET = 2000  # units: below the note's entries, so both its parse and its judging are cut


HUGE = "inbox/amy/2026-10-09-1100-amy-huge.md"


def _pathological(root: Path) -> Path:
    knowledge = root / "organized" / "knowledge"
    knowledge.mkdir(parents=True)
    (knowledge / "inference.md").write_text(KNOWLEDGE, encoding="utf-8")
    inbox = root / "inbox" / "amy"
    inbox.mkdir(parents=True)
    (inbox / "2026-10-09-1000-amy-normal.md").write_text(_entry(1, SMALL_IDS[0], "Bobsched"), encoding="utf-8")
    huge = "\n\n".join(f"## {k}. Kestrel 2.0 release, build {k}\n\nKestrel 2.0 is a new vLLM inference engine, "
                       f"{k % 9 + 1}.1× faster on H100. 建议进 E1" for k in range(1, PATHOLOGICAL + 1))
    (root / HUGE).write_text(huge + "\n", encoding="utf-8")
    return root


class Jumping:
    """time.monotonic on a machine under any load: every reading is a minute after the last."""

    def __init__(self) -> None:
        self.readings = itertools.count(1)
        self.real = time.monotonic

    def __call__(self) -> float:
        return self.real() + 60.0 * next(self.readings)


@pytest.mark.slow
def test_a_pathological_source_is_cut_at_the_same_place_whatever_the_clock(
    tmp_path: Path, settings: Settings, clean_db: Engine, migrated_database: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace = _pathological(tmp_path / "ws")
    tight = settings.model_copy(update={"source_budget_units": BUDGET})
    _, results = run_evening(tight, workspace, ["inference"], DAY)
    assert [r.error for r in results] == [None]
    md, twin = published(tight, "inference", DAY)
    (huge,) = [s for s in twin["sources"] if s["path"] == HUGE]
    # Cut while parsing (its entries past the budget never stored) and again while judging what
    # was kept (its candidates' comparisons): each stage says so once, worded in the briefing's
    # language (zh: tasks/config/labels.toml), and the rest of the evening is whole.
    parsed = LABELS["zh"]["src_cut"].format(units=BUDGET, step=LABELS["zh"]["step_entries"], at=BUDGET + 1,
                                            done_word=LABELS["zh"]["done_parsing"], done=BUDGET)
    assert parsed in huge["summary"] and md.count(parsed) == 1, huge["summary"]
    judged = f"超出 {BUDGET} 单位工作量预算：{LABELS['zh']['step_engineering']}到第 "
    assert judged in huge["summary"] and md.count(judged) == 1, huge["summary"]
    assert SMALL_IDS[0] in md and SMALL_IDS[0] in json.dumps(twin)  # the other source is judged whole

    # The same workspace in a database and a store of its own, every clock reading a minute late.
    loaded = tight.model_copy(update={"database_url": migrated_database("predigest_loaded"),
                                      "storage_url": (tmp_path / "published-loaded").as_uri()})
    monkeypatch.setattr(time, "monotonic", Jumping())
    _, results = run_evening(loaded, workspace, ["inference"], DAY)
    assert [r.error for r in results] == [None]
    assert published(loaded, "inference", DAY) == (md, twin)
    for name in ("md", "json"):
        assert ((tmp_path / "published-loaded" / "briefings" / "inference" / f"{DAY}.{name}").read_bytes()
                == (tmp_path / "published" / "briefings" / "inference" / f"{DAY}.{name}").read_bytes())


@pytest.mark.slow
def test_the_quadratic_engineering_merge_is_what_a_budget_cuts(
    tmp_path: Path, settings: Settings, clean_db: Engine
) -> None:
    """The briefing's content alone, on a tight budget, over the whole source (read within the
    default budget): the quadratic engineering merge is what is cut."""
    workspace = _pathological(tmp_path / "ws")
    ref = ingest_all(settings, workspace)
    (topic,) = topics_for(settings, workspace, ["inference"])
    with session_scope(get_engine(settings)) as session:
        data = collect_window(session, ref.id, topic.name, window_of(topic, DAY), topic.schedule)
    assert sum(e.path == HUGE for e in data.entries) == PATHOLOGICAL  # read whole
    budgets = SourceBudgets(BUDGET)
    content = build_content(data, topic, ["inference"], budgets=budgets)
    assert list(budgets.cut) == [HUGE] and budgets.cut[HUGE].step == "engineering", budgets.cut
    # Counted: the cut falls where the units ran out, never beyond the budget by more than one unit's work.
    assert budgets.cut[HUGE].done < PATHOLOGICAL and budgets.spent[HUGE] >= BUDGET
    assert SMALL_IDS[0] in {p.arxiv_id for p in content.papers}
