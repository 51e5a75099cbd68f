"""Tell the configured destinations that a briefing was published, once per (topic, date, content hash).

Destinations come from `Settings` and are delivered by Apprise: generic JSON webhooks
(`notify_webhooks`, a JSON POST with the briefing's facts), any Apprise URL (`notify_urls`: Slack
and Feishu incoming webhooks, …) and e-mail over SMTP with HTML and plain-text parts (`smtp_*`,
`email_*`). A delivery is tried `notify_attempts` times with growing pauses; a failure is logged and
never raised, so a dead endpoint cannot fail the briefing. A delivered message leaves a small
marker object in the store (`notifications/<topic>/<date>/<content hash>/<destination>.json`), so
the same content is never announced twice to the same place, whichever worker publishes it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

from tasks.common.urls import safe_url
from tasks.config.settings import Settings
from tasks.model.keys import notification_key
from tasks.publish.objects import JSON_CONTENT_TYPE
from tasks.publish.pages import ENV, labels_for, statement
from tasks.publish.safety import clean_text
from tasks.publish.storage import ObjectStore
from tasks.render.labels import feed_problems_text

log = logging.getLogger(__name__)

_FEISHU_HOOK = re.compile(r"https://open\.feishu\.cn/open-apis/bot/v2/hook/([A-Za-z0-9_-]+)/?")


@dataclass(frozen=True)
class Destination:
    name: str  # what the log says (no secrets)
    url: str  # the Apprise URL (may hold secrets: never logged)
    html: bool  # e-mail: send the HTML body (Apprise adds the plain-text part)


@dataclass(frozen=True)
class Message:
    title: str
    text: str
    html: str
    facts: dict[str, str]


def destinations(settings: Settings) -> list[Destination]:
    """Every destination the settings configure, in a fixed order."""
    out = []
    for url in settings.notify_webhooks:
        parts = urlsplit(url)
        if safe_url(url) is None or parts.scheme not in ("http", "https"):
            log.warning("notify_webhooks: ignoring %r, not an http(s) URL", parts.netloc or url[:20])
            continue
        scheme = "jsons" if parts.scheme == "https" else "json"
        out.append(Destination(f"webhook {parts.netloc}", urlunsplit((scheme, *parts[1:])), html=False))
    for url in settings.notify_urls:
        # Apprise reads Slack's webhook URL as it is, but Feishu's only as feishu://<token>.
        target = f"feishu://{feishu[1]}" if (feishu := _FEISHU_HOOK.fullmatch(url)) else url
        parts = urlsplit(target)
        # Only an http(s) host is safe to log: in slack://…, feishu://… the "host" is the secret token.
        name = f"{parts.scheme}://{parts.hostname}" if parts.scheme in ("http", "https") else f"{parts.scheme}://…"
        out.append(Destination(name, target, html=False))
    if settings.smtp_host and settings.email_to:
        secure = settings.smtp_security != "none"
        auth = ""
        if settings.smtp_user:
            password = settings.smtp_password.get_secret_value() if settings.smtp_password else ""
            auth = quote(settings.smtp_user, safe="") + (f":{quote(password, safe='')}" if password else "") + "@"
        query = urlencode({"from": settings.email_from, "to": ",".join(settings.email_to),
                           "mode": settings.smtp_security if secure else "insecure"})
        url = f"{'mailtos' if secure else 'mailto'}://{auth}{settings.smtp_host}:{settings.smtp_port}/?{query}"
        out.append(Destination(f"e-mail via {settings.smtp_host}", url, html=True))
    return out


def build_message(topic: str, summary: Mapping[str, Any], lang: str, page_url: str, feed_url: str) -> Message:
    """The announcement of one briefing from its summary (`tasks.publish.pages.date_summary`): title,
    plain text, HTML (Jinja2, autoescaped) and the facts."""
    lang, L, density = labels_for(lang)
    net_new = [p for p in summary["increments"] if p["status"] == "net_new"]
    title = clean_text(L["published"].format(topic=topic, date=summary["date"],
                                             density=density.get(str(summary["density"]), str(summary["density"])),
                                             net_new=len(net_new)))
    lines = [statement(summary, lang), ""]
    lines += [f"- {clean_text(p['title'])}" + (f" (arXiv:{p['arxiv_id']})" if p["arxiv_id"] else "")
              for p in summary["increments"]]
    lines += ["", f"{L['read_page']}: {page_url}", f"Atom: {feed_url}"]
    html = ENV.get_template("notification.html").render(summary=summary, L=L, D=density, lang=lang,
                                                        statement=statement(summary, lang), title=title,
                                                        page_url=safe_url(page_url), feed_url=safe_url(feed_url),
                                                        page_location=page_url)
    facts = {"topic": str(topic), "date": str(summary["date"]), "density": str(summary["density"]),
             "net_new": ",".join(str(p["arxiv_id"] or p["title"]) for p in net_new), "page": page_url, "feed": feed_url}
    if summary.get("feed_problems"):  # a broken feed is told apart from a quiet day wherever the message goes
        facts["feed_problems"] = clean_text(feed_problems_text(summary["feed_problems"], L))
    return Message(title, "\n".join(lines).strip() + "\n", html, facts)


def marker_key(topic: str, date: dt.date, content_hash: str, destination: Destination) -> str:
    """Where the marker of a delivery to `destination` lives (named by a digest of its URL: no secrets in keys)."""
    return notification_key(topic, date, content_hash, hashlib.sha256(destination.url.encode("utf-8")).hexdigest()[:16])


def _deliver_once(destination: Destination, message: Message) -> bool:
    url = destination.url
    if url.startswith(("json://", "jsons://")):  # the facts as fields of the JSON body
        # Apprise decodes the query without turning "+" back into spaces: spaces go as %20.
        url += ("&" if "?" in url else "?") + urlencode({f":{k}": v for k, v in message.facts.items()}, quote_via=quote)
    import apprise  # slow to import: only when a notification is sent

    client = apprise.Apprise()
    if not client.add(url):
        raise ValueError(f"{destination.name}: not a URL Apprise can deliver to")
    body, body_format = (message.html, apprise.NotifyFormat.HTML) if destination.html else \
        (message.text, apprise.NotifyFormat.TEXT)
    return bool(client.notify(body=body, title=message.title, body_format=body_format))


def deliver(destination: Destination, message: Message, attempts: int, backoff: float) -> bool:
    """Send, retrying with pauses of backoff, 2×backoff, …; True when the destination took it."""
    for attempt in range(1, attempts + 1):
        try:
            if _deliver_once(destination, message):
                return True
            log.warning("notification to %s failed (attempt %d of %d)", destination.name, attempt, attempts)
        except Exception as exc:  # a destination must never fail the briefing
            log.warning("notification to %s failed (attempt %d of %d): %s", destination.name, attempt, attempts, exc)
        if attempt < attempts:
            time.sleep(backoff * 2 ** (attempt - 1))
    return False


def notify_published(
    settings: Settings, store: ObjectStore, topic: str, date: dt.date, content_hash: str,
    summary: Mapping[str, Any], page_url: str, feed_url: str,
) -> dict[str, str]:
    """Announce one published briefing (from its summary, `date_summary`) to every destination not
    told about this content yet.

    Returns destination name -> "sent", "already sent" or "failed"; never raises for a delivery.
    """
    outcome: dict[str, str] = {}
    targets = destinations(settings)
    if not targets:
        return outcome
    message = build_message(topic, summary, settings.lang, page_url, feed_url)
    for destination in targets:
        key = marker_key(topic, date, content_hash, destination)
        if store.head_sha256(key) is not None:
            outcome[destination.name] = "already sent"
            continue
        if deliver(destination, message, settings.notify_attempts, settings.notify_backoff_seconds):
            marker = {"topic": topic, "date": date.isoformat(), "content_hash": content_hash,
                      "destination": destination.name}
            store.put(key, (json.dumps(marker, sort_keys=True) + "\n").encode("utf-8"), JSON_CONTENT_TYPE)
            outcome[destination.name] = "sent"
            log.info("notified %s of %s %s", destination.name, topic, date.isoformat())
        else:
            outcome[destination.name] = "failed"
            log.error("could not notify %s of %s %s after %d attempts", destination.name, topic, date.isoformat(),
                      settings.notify_attempts)
    return outcome
