"""Contract: a workspace's `predigest-judgment.toml` reaches name matching (tasks.verify.names).

Each test writes a workspace override that adds one word to one list (`[names] common`, `[names]
stop`, `[markers] generic_title_regex`), loads the judgment as a run does (`load_config` and
`make_judgment`), and asserts that matching names on it differs from matching on the packaged
judgment in what that word alone decides. The last test briefs a workspace through the real
pipeline (tests.config.test_judgment_override) and sees two pending items where one was.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine

from tasks.config.judgment import WORKSPACE_JUDGMENT_FILE, load_config, make_judgment
from tasks.config.settings import Settings
from tasks.verify.names import Names, names_of
from tests.config.test_judgment_override import _added, _both, _pending

PACKAGED = names_of(make_judgment(load_config(None)))


def _names(workspace: Path, override: str) -> Names:
    """The name matching of a workspace whose `predigest-judgment.toml` is `override`."""
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / WORKSPACE_JUDGMENT_FILE).write_text(override, encoding="utf-8")
    return names_of(make_judgment(load_config(workspace)))


def test_an_added_common_word_names_nothing_on_its_own(tmp_path: Path) -> None:
    common = _names(tmp_path, _added("names", "common", "zorblax"))
    assert PACKAGED.is_name("Zorblax") and PACKAGED.names_match("Zorblax", "Zorblax engine")
    assert PACKAGED.head_token("Zorblax 调度器") == "zorblax"
    assert not common.is_name("Zorblax") and not common.names_match("Zorblax", "Zorblax engine")
    assert common.head_token("Zorblax 调度器") is None
    assert common.is_name("Zorblax engine")  # two distinctive words still name one thing


def test_an_added_stop_word_is_left_out_of_a_name(tmp_path: Path) -> None:
    stop = _names(tmp_path, _added("names", "stop", "turbo"))
    assert not PACKAGED.names_match("FooServe Turbo", "FooServe Lite")
    assert stop.distinctive("FooServe Turbo") == frozenset({"fooserve"})
    assert stop.names_match("FooServe Turbo", "FooServe Lite")
    assert stop.mentions_name("we ran FooServe turbo lite on H200", "FooServe Lite")
    assert not PACKAGED.mentions_name("we ran FooServe turbo lite on H200", "FooServe Lite")


def test_an_added_section_heading_is_generic(tmp_path: Path) -> None:
    generic = _names(tmp_path, _added("markers", "generic_title_regex", r"Ausblick\b"))
    assert not PACKAGED.is_generic("Ausblick") and generic.is_generic("Ausblick")
    assert not generic.is_generic("FooServe")


def test_an_added_common_word_keeps_two_pending_items_apart(settings: Settings, clean_db: Engine,
                                                            tmp_path: Path) -> None:
    """Two hedged headings led by one coined word are one pending item; once the workspace calls the
    word common, it identifies nothing and the two stay two."""
    note = ("# Inference notes\n\n## Zorblax decode claim\n\n- 31% lower decode latency than vLLM on H200, 待核实。\n\n"
            "## Zorblax P99 test conditions\n\n- measured against vLLM on one H200 only, 待核实。\n")
    (before, _), (after, _) = _both(settings, clean_db, tmp_path, note, _added("names", "common", "zorblax"))
    assert len([s for s in _pending(before) if "Zorblax" in s]) == 1, before["verifications"]
    assert len([s for s in _pending(after) if "Zorblax" in s]) == 2, after["verifications"]
