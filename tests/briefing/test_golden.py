"""Golden contract: briefings of the sample workspace match shared/corpus/expected for 2026-10-07 and 2026-10-09.

Checked keys: window files, sources checked, net_new, already_anchored (with anchor dates),
reference_list_only, multi_source, malformed_ids, off_topic_ids, density, and the JSON schema.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import jsonschema
import pytest

from tests.helpers import FIXTURES, SAMPLE_WORKSPACE, briefing_json, expected, truncate_all

DAYS = ["2026-10-07", "2026-10-09"]
# Anchor dates as the knowledge document states them (expected/README.md §3 and §2).
ANCHOR_DATES = {
    "2026-10-07": {"2610.03394": "2026-10-06", "2609.12551": "2026-10-06", "2610.05062": "2026-10-06"},
    "2026-10-09": {
        "2610.10845": "2026-10-09", "2610.06479": "2026-10-09", "2607.09701": "2026-10-09",
        "2610.04646": "2026-10-08", "2610.03430": "2026-10-08", "2605.16867": "2026-10-08",
    },
}


@pytest.fixture(scope="module")
def briefings(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    # One ingest for both dates: the same database must answer each date as of its own cutoff.
    truncate_all(request.getfixturevalue("engine"))
    settings = request.getfixturevalue("module_settings")
    return {day: briefing_json(settings, SAMPLE_WORKSPACE, "inference", dt.date.fromisoformat(day)) for day in DAYS}


def _ids(brief: dict[str, Any], status: str) -> set[str]:
    return {c["arxiv_id"] for c in brief["citations"] if c["status"] == status}


@pytest.mark.parametrize("day", DAYS)
def test_schema_and_header(briefings: dict[str, dict[str, Any]], day: str) -> None:
    brief = briefings[day]
    schema = json.loads((FIXTURES / "briefing.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(brief, schema)
    assert brief["cutoff"] == expected(day)["cutoff"]
    assert brief["density"] == expected(day)["density"]


@pytest.mark.parametrize("day", DAYS)
def test_window_files_and_sources_checked(briefings: dict[str, dict[str, Any]], day: str) -> None:
    exp = expected(day)
    sources = {s["path"]: s for s in briefings[day]["sources"]}
    window_notes = {p for p, s in sources.items() if s["kind"] in ("note", "hf_daily")}
    assert window_notes == set(exp["window_files"])
    assert set(exp["sources_checked"]) <= set(sources)
    extra = set(sources) - set(exp["sources_checked"]) - set(exp["window_files"])
    assert all(p.startswith("organized/paper_cards/") for p in extra), extra
    empty = [s for s in sources.values() if s["error"]]
    assert all(s["conclusion"] for s in empty)


@pytest.mark.parametrize("day", DAYS)
def test_net_new_is_exact(briefings: dict[str, dict[str, Any]], day: str) -> None:
    brief = briefings[day]
    assert _ids(brief, "net_new") == set(expected(day)["net_new"])
    assert {i["arxiv_id"] for i in brief["increments"] if i["status"] == "net_new"} == set(expected(day)["net_new"])


@pytest.mark.parametrize("day", DAYS)
def test_already_anchored_with_dates(briefings: dict[str, dict[str, Any]], day: str) -> None:
    anchored = {c["arxiv_id"]: c["anchored_on"] for c in briefings[day]["citations"] if c["status"] == "already_anchored"}
    assert set(anchored) == set(expected(day)["already_anchored"])
    assert anchored == ANCHOR_DATES[day]


@pytest.mark.parametrize("day", DAYS)
def test_reference_list_only(briefings: dict[str, dict[str, Any]], day: str) -> None:
    assert _ids(briefings[day], "reference_list_only") == set(expected(day)["reference_list_only"])


@pytest.mark.parametrize("day", DAYS)
def test_multi_source_increments_list_every_source(briefings: dict[str, dict[str, Any]], day: str) -> None:
    citations = {c["arxiv_id"]: c for c in briefings[day]["citations"]}
    for arxiv_id, paths in expected(day)["multi_source"].items():
        assert set(citations[arxiv_id]["sources"]) == set(paths), arxiv_id


@pytest.mark.parametrize("day", DAYS)
def test_malformed_ids_reported_raw(briefings: dict[str, dict[str, Any]], day: str) -> None:
    assert briefings[day]["malformed_ids"] == sorted(expected(day)["malformed_ids"])


@pytest.mark.parametrize("day", DAYS)
def test_off_topic_ids(briefings: dict[str, dict[str, Any]], day: str) -> None:
    off = {o["arxiv_id"] for o in briefings[day]["off_topic"]}
    assert off == set(expected(day)["off_topic_ids"])


def test_adjacent_items_are_not_net_new(briefings: dict[str, dict[str, Any]]) -> None:
    brief = briefings["2026-10-09"]
    adjacent = {i["arxiv_id"] for i in brief["increments"] if i["status"] == "adjacent"}
    assert adjacent == set(expected("2026-10-09")["adjacent_pending"])
