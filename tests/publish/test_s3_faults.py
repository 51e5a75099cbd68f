"""Contract of publishing to an S3 that fails: against moto's real S3 server behind a proxy that answers
500/503 or drops connections (before or after the object is stored), a publish retries each request
as the settings configure (botocore's standard retry mode) and stores exactly what a clean publish
stores. When the retries run out, the publish fails, and what it leaves is consistent: every stored
object is whole (its bytes match its recorded sha256) and the index names only briefings whose
markdown, twin and page are all stored; publishing again completes it, byte for byte."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import BotoCoreError, ClientError

from tasks.config.settings import Settings
from tasks.publish.objects import DEFAULT_LANG, INDEX_KEY
from tasks.publish.site import site_keys
from tasks.publish.storage import ObjectStore, sha256_hex, store_for
from tests.publish.briefing_factory import make_content, publish_content
from tests.publish.faulty_s3 import (
    DROP,
    DROP_AFTER,
    ERROR_500,
    ERROR_503,
    PASS,
    FaultPlan,
    faulty_s3_endpoint,
)

pytestmark = pytest.mark.slow  # each case retries against a real S3 server behind a proxy: ~5 s
DAY1, DAY2 = dt.date(2026, 10, 8), dt.date(2026, 10, 9)


@pytest.fixture(scope="module")
def endpoint() -> Iterator[tuple[str, FaultPlan]]:
    with pytest.MonkeyPatch.context() as mp:
        for var, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                           "AWS_DEFAULT_REGION": "us-east-1"}.items():
            mp.setenv(var, value)
        with faulty_s3_endpoint() as served:
            yield served


def _store(endpoint: tuple[str, FaultPlan], bucket: str, attempts: int) -> tuple[ObjectStore, Any]:
    url, plan = endpoint
    plan.arm([])
    settings = Settings(_env_file=None, storage_url=f"s3://{bucket}/team", s3_endpoint_url=url,  # type: ignore[call-arg]
                        s3_max_attempts=attempts)
    store = store_for(settings)
    client = store.client  # type: ignore[attr-defined]
    client.create_bucket(Bucket=bucket)
    return store, client


def _objects(client: Any, bucket: str) -> dict[str, bytes]:
    listed = client.list_objects_v2(Bucket=bucket).get("Contents", [])
    return {o["Key"]: client.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for o in listed}


def _assert_consistent(store: ObjectStore, client: Any, bucket: str) -> None:
    """Every object whole, and every index entry's markdown, twin and page stored."""
    for key, data in _objects(client, bucket).items():
        recorded = client.head_object(Bucket=bucket, Key=key)["Metadata"].get("sha256")
        assert recorded == sha256_hex(data), f"{key} is not the object its writer sent"
    raw = store.get(INDEX_KEY)
    for entry in json.loads(raw)["briefings"] if raw is not None else []:
        day = dt.date.fromisoformat(entry["date"])
        for key in (entry["markdown"], entry["json"], site_keys(entry["topic"], day, entry.get("lang", DEFAULT_LANG))["page"]):
            assert store.get(key) is not None, f"the index names {entry['date']} but {key} is missing"


def _publish(store: ObjectStore, *days: dt.date) -> None:
    for day in days:
        publish_content(store, make_content("inference", day))


@pytest.fixture(scope="module")
def clean(endpoint: tuple[str, FaultPlan]) -> dict[str, bytes]:
    """What a publish of both days stores when nothing fails (keys below the bucket)."""
    store, client = _store(endpoint, "clean", attempts=1)
    _publish(store, DAY1, DAY2)
    return _objects(client, "clean")


def test_faults_within_the_retry_budget_publish_what_a_clean_run_does(
    endpoint: tuple[str, FaultPlan], clean: dict[str, bytes]
) -> None:
    store, client = _store(endpoint, "retried", attempts=4)
    faults = [ERROR_503, DROP, PASS, ERROR_500, PASS, DROP_AFTER, PASS, ERROR_503, ERROR_500, DROP, PASS, DROP]
    endpoint[1].arm(faults, matches=lambda method, path: method == "PUT")
    _publish(store, DAY1, DAY2)
    plan = endpoint[1]
    assert not plan.faults, "every injected fault was met by some request"
    assert [action for _, _, action in plan.seen if action != PASS] == [f for f in faults if f != PASS]
    assert _objects(client, "retried") == clean
    _assert_consistent(store, client, "retried")


@pytest.mark.parametrize(("fault", "failing_key"), [
    (DROP, "briefings/inference/2026-10-09.html"),      # the page: the twin is stored, the index must not say so
    (ERROR_503, "briefings/inference/2026-10-09.json"),  # the twin: its markdown is stored
    (ERROR_500, "briefings/index.json"),                 # the index itself: the old one stays
    (DROP_AFTER, "briefings/inference/atom.xml"),        # stored each time, every answer lost
])
def test_exhausted_retries_leave_a_consistent_store_and_a_rerun_completes_it(
    endpoint: tuple[str, FaultPlan], clean: dict[str, bytes], fault: str, failing_key: str
) -> None:
    bucket = f"cut-{fault}-{failing_key.rsplit('.', 1)[-1]}".replace("_", "-")
    store, client = _store(endpoint, bucket, attempts=2)
    _publish(store, DAY1)
    before = json.loads(store.get(INDEX_KEY) or b"{}")
    # More faults than attempts (a dropped keep-alive connection may also be retried below botocore).
    endpoint[1].arm([fault] * 6, matches=lambda method, path: method == "PUT" and path.endswith(failing_key))
    with pytest.raises((ClientError, BotoCoreError)):
        _publish(store, DAY2)
    assert len(endpoint[1].faults) <= 4, "the failing request was retried"
    _assert_consistent(store, client, bucket)
    assert json.loads(store.get(INDEX_KEY) or b"{}") == before, "the index changes only once all else is stored"
    endpoint[1].arm([])
    _publish(store, DAY2)
    assert _objects(client, bucket) == clean
    _assert_consistent(store, client, bucket)
