"""Contract of notifications (`tasks.publish.notify`, via `tasks.publish.artifacts.announce`), against
a local HTTP server (generic JSON webhook) and a local SMTP server (aiosmtpd):

- Each published briefing sends exactly one message to each destination: a JSON POST carrying the
  topic, date, density and NET-new ids; an e-mail with a text/plain and a text/html part.
- An unchanged briefing sends nothing; announcing the same (topic, date, content hash) again sends
  nothing (a marker object in the store records each delivery).
- A failing endpoint is retried `notify_attempts` times, is logged, and neither raises nor stops the
  other destinations; the daily flow with a failing endpoint completes and still publishes.
- Slack and Feishu incoming-webhook URLs are accepted as destinations (Apprise parses them).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email
import json
import socket
from collections.abc import Iterator
from email.message import Message as EmailMessage
from pathlib import Path
from typing import Any

import apprise
import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import Engine

from tasks.config.settings import Settings, get_settings
from tasks.publish.artifacts import announce
from tasks.publish.notify import destinations
from tasks.publish.storage import LocalStore
from tests.helpers import SAMPLE_WORKSPACE, point_flows_at
from tests.publish.briefing_factory import Result, make_content, publish_result
from tests.publish.hooks import Hooks, serve_hooks

DAY = dt.date(2026, 10, 9)


@pytest.fixture
def webhook() -> Iterator[Hooks]:
    with serve_hooks() as hooks:
        yield hooks


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802 (aiosmtpd's naming)
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@pytest.fixture
def smtp() -> Iterator[tuple[_Inbox, int]]:
    inbox = _Inbox()
    with socket.socket() as probe:  # aiosmtpd checks readiness by connecting, so it needs a real port
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def _settings(tmp_path: Path, hooks: Hooks, port: int, **extra: Any) -> Settings:
    return Settings(_env_file=None, home=tmp_path / "home", storage_url=(tmp_path / "pub").as_uri(),  # type: ignore[call-arg]
                    notify_webhooks=[hooks.url], smtp_host="127.0.0.1", smtp_port=port, smtp_security="none",
                    email_from="predigest@example.org", email_to=["team@example.org"], notify_backoff_seconds=0,
                    **extra)



def _publish(settings: Settings, day: dt.date, net_new: int = 2) -> Result:
    return publish_result(LocalStore(tmp_root(settings)), make_content("inference", day, net_new=net_new))


def tmp_root(settings: Settings) -> Path:
    return Path(settings.storage_root_url.removeprefix("file://"))


def test_one_message_per_published_briefing_and_none_when_unchanged(
    tmp_path: Path, webhook: Hooks, smtp: tuple[_Inbox, int]
) -> None:
    inbox, port = smtp
    settings = _settings(tmp_path, webhook, port)
    first = [_publish(settings, DAY - dt.timedelta(days=1)), _publish(settings, DAY, net_new=3)]
    announce(settings, first)
    assert [(b["topic"], b["date"]) for b in webhook.bodies] == [("inference", "2026-10-08"), ("inference", "2026-10-09")]
    assert webhook.bodies[1]["net_new"] == "2610.01000,2610.01001,2610.01002"
    assert webhook.bodies[1]["density"] == "medium" and "NET-new 3" in webhook.bodies[1]["title"]
    assert len(inbox.messages) == 2
    for message in inbox.messages:
        assert message.get_content_type() == "multipart/alternative"
        parts = {p.get_content_type(): p.get_payload(decode=True).decode() for p in message.walk()
                 if not p.is_multipart()}
        assert set(parts) == {"text/plain", "text/html"}
        assert "诚实度声明" in parts["text/plain"] and "<a href=" in parts["text/html"]

    again = [_publish(settings, DAY - dt.timedelta(days=1)), _publish(settings, DAY, net_new=3)]
    assert not any(r.written for r in again)
    announce(settings, again)
    announce(settings, first)  # the same content reported as written again (e.g. --force): markers hold
    assert len(webhook.bodies) == 2 and len(inbox.messages) == 2

    changed = _publish(settings, DAY, net_new=1)
    announce(settings, [changed])
    assert len(webhook.bodies) == 3 and len(inbox.messages) == 3


def test_a_message_says_what_the_run_rendered_not_what_the_store_holds(
    tmp_path: Path, webhook: Hooks, smtp: tuple[_Inbox, int]
) -> None:
    _, port = smtp
    settings = _settings(tmp_path, webhook, port)
    published = _publish(settings, DAY, net_new=3)
    for twin in (tmp_root(settings) / "briefings").rglob("2026-*.json"):
        twin.unlink()  # the message comes from the result's summary: the twins are never read back
    announce(settings, [published])
    assert [(b["date"], b["net_new"]) for b in webhook.bodies] == [("2026-10-09", "2610.01000,2610.01001,2610.01002")]


def test_a_failing_endpoint_is_retried_logged_and_harmless(
    tmp_path: Path, webhook: Hooks, smtp: tuple[_Inbox, int], caplog: pytest.LogCaptureFixture
) -> None:
    inbox, port = smtp
    webhook.status = 500
    settings = _settings(tmp_path, webhook, port, notify_attempts=3)
    announce(settings, [_publish(settings, DAY)])
    assert webhook.failed == 3 and webhook.bodies == []
    assert len(inbox.messages) == 1
    assert "could not notify webhook" in caplog.text
    markers = list((tmp_root(settings) / "notifications").rglob("*.json"))
    assert len(markers) == 1  # the e-mail's only


def test_backfills_notify_only_when_asked(tmp_path: Path, webhook: Hooks, smtp: tuple[_Inbox, int]) -> None:
    inbox, port = smtp
    settings = _settings(tmp_path, webhook, port)
    published = _publish(settings, DAY)
    announce(settings, [published], backfill=True)
    assert webhook.bodies == [] and inbox.messages == []
    announce(settings.model_copy(update={"notify_backfill": True}), [published], backfill=True)
    assert len(webhook.bodies) == 1 and len(inbox.messages) == 1


def test_slack_and_feishu_webhook_urls_are_destinations() -> None:
    urls = ["https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
            "https://open.feishu.cn/open-apis/bot/v2/hook/0123456789abcdef"]
    settings = Settings(_env_file=None, notify_urls=urls)  # type: ignore[call-arg]
    found = destinations(settings)
    assert len(found) == 2
    for destination in found:
        assert apprise.Apprise().add(destination.url), destination.name


def test_the_daily_flow_completes_when_the_endpoint_fails(
    prefect_harness: None, clean_db: Engine, settings: Settings, monkeypatch: pytest.MonkeyPatch, webhook: Hooks
) -> None:
    from flows.daily import daily_briefing

    webhook.status = 503
    for var, value in {"PREDIGEST_NOTIFY_WEBHOOKS": json.dumps([webhook.url]), "PREDIGEST_NOTIFY_ATTEMPTS": "2",
                       "PREDIGEST_NOTIFY_BACKOFF_SECONDS": "0"}.items():
        monkeypatch.setenv(var, value)
    point_flows_at(monkeypatch, settings)
    try:
        results = asyncio.run(daily_briefing(date=DAY, topics=["inference"], workspace=str(SAMPLE_WORKSPACE)))
    finally:
        get_settings.cache_clear()
    assert results[0].written and Path(results[0].html_url).is_file() and Path(results[0].feed_url).is_file()
    assert webhook.failed == 2
