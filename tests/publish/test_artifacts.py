"""Contract of the run-page artifacts (`tasks.publish.artifacts.announce`) on a Prefect API:

- Inside a flow run, each published briefing gets one markdown artifact, key
  `briefing-<topic>-<date>`, naming its title, density, NET-new ids and the keys of its page and feed;
  an unchanged briefing gets none. Both are logged as "published"/"unchanged" with the page's location.
- Text from notes in the artifact is markdown-escaped (a title cannot inject links or markup).
- A backfill's dates get no artifact each (`artifact=False`) but are logged; the backfill run gets
  one table artifact, a row per briefing (date, topic, published/unchanged/failed, page), sorted.
- Outside a run, announce creates nothing and does not fail.
"""

from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from tasks.config.settings import Settings
from tasks.publish.artifacts import announce, announce_backfill, artifact_key, backfill_rows
from tasks.publish.storage import LocalStore
from tests.publish.briefing_factory import Result, make_content, publish_result

DAY = dt.date(2026, 10, 9)



def _settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, home=tmp_path / "home", storage_url=(tmp_path / "pub").as_uri())  # type: ignore[call-arg]


def _publish(tmp_path: Path, topic: str, text: str = "") -> Result:
    return publish_result(LocalStore(tmp_path / "pub"), make_content(topic, DAY, net_new=2, text=text))


def test_published_briefings_get_an_artifact_and_unchanged_ones_do_not(
    prefect_harness: None, tmp_path: Path
) -> None:
    from prefect import flow, get_client

    settings = _settings(tmp_path)
    published = _publish(tmp_path, "art-a", text="[x](javascript:alert(1)) <b> *em* [y]")
    unchanged = Result("art-b", DAY, "0" * 64, False)

    @flow(name="announce-test")
    def announcing() -> None:
        announce(settings, [published, unchanged])

    heard: list[str] = []
    handler = logging.Handler(logging.INFO)
    handler.emit = lambda record: heard.append(record.getMessage())  # type: ignore[method-assign]
    run_logger = logging.getLogger("prefect.flow_runs")  # where get_run_logger() writes
    run_logger.addHandler(handler)
    try:
        announcing()
    finally:
        run_logger.removeHandler(handler)
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
            artifact_key("art-a", DAY), artifact_key("art-b", DAY)])))
    assert [a.key for a in found] == ["briefing-art-a-2026-10-09"]
    text = str(found[0].data)
    assert "2610\\.01000" in text and "2610\\.01001" in text
    assert "`briefings/art-a/2026-10-09.html`" in text and "`briefings/art-a/atom.xml`" in text
    # A link in a title is reduced to its text before the JSON twin; what markup is left is escaped.
    assert "javascript" not in text and "](" not in text
    assert "\\<b\\> \\*em\\* \\[y\\]" in text and "<b>" not in text
    assert any(m.startswith("art-a 2026-10-09 published: ") and m.endswith("briefings/art-a/atom.xml)") for m in heard)
    assert any(m.startswith("art-b 2026-10-09 unchanged: ") for m in heard)


def test_outside_a_run_nothing_is_created(tmp_path: Path) -> None:
    announce(_settings(tmp_path), [_publish(tmp_path, "art-c")])  # must not raise without a Prefect context


def test_a_backfill_gets_one_table_and_no_artifact_per_date(prefect_harness: None, tmp_path: Path) -> None:
    import json

    from prefect import flow, get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId, ArtifactFilterKey

    settings = _settings(tmp_path)
    published = _publish(tmp_path, "art-d")
    unchanged = Result("art-e", DAY - dt.timedelta(days=1), "0" * 64, False)

    @flow(name="backfill-announce-test")
    def backfilling() -> str:
        from prefect.runtime import flow_run

        announce(settings, [published, unchanged], backfill=True, artifact=False)
        announce_backfill(settings, [published, unchanged], DAY - dt.timedelta(days=1), DAY)
        return str(flow_run.id)

    run_id = backfilling()
    with get_client(sync_client=True) as client:
        keyed = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[
            artifact_key("art-d", DAY), artifact_key("art-e", DAY - dt.timedelta(days=1))])))
        on_run = client.read_artifacts(artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run_id])))
    assert keyed == []
    (table,) = on_run
    assert table.type == "table" and "2 briefings, 1 published" in (table.description or "")
    rows = json.loads(table.data) if isinstance(table.data, str) else table.data
    assert rows == backfill_rows(settings, [published, unchanged])
    assert [(r["date"], r["topic"], r["state"]) for r in rows] == [
        ("2026-10-08", "art-e", "unchanged"), ("2026-10-09", "art-d", "published")]
    assert rows[1]["page"].endswith("briefings/art-d/2026-10-09.html")
