"""Contract of the published pages and feeds in a real browser (headless Chromium, Debian's `chromium`):

- A corpus of hostile payloads (script, event handlers, javascript:/data:/vbscript: links, template
  syntax, container breakouts such as `</textarea>` and `]]>`, bidi controls) placed in note text,
  card titles and the feed's entries produces, in every page and the feed: no dialog, no console
  message, no uncaught exception, no log error (a CSP refusal would mean a script element got in),
  no `on*` attribute and no link outside http/https/mailto or a relative page link.
- Template syntax shows up as text (nothing from a note is evaluated).
- The demo-like briefing loads and shows its title and statement; screenshots at desktop and phone
  widths are saved under `artifacts/screenshots/` (git-ignored) for inspection.
Skipped, with the reason, when no Chromium binary is installed; in CI (`CI` set) that fails instead
(the `chromium` fixture, tests/publish/conftest.py; `.ci/run` installs Debian's `chromium`).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from tasks.publish.storage import LocalStore
from tests.publish.briefing_factory import make_content, publish_content
from tests.publish.chromium import Browser, save

pytestmark = pytest.mark.slow
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
DAY = dt.date(2026, 10, 9)

PAYLOADS = [
    "<script>alert('script')</script>",
    "<img src=x onerror=alert('img')>",
    "<svg onload=alert('svg')><circle/></svg>",
    "<details open ontoggle=console.error('toggle')>",
    "<body onload=alert('body')>",
    "<a href=\"javascript:alert('a')\">click</a>",
    "[md-js](javascript:alert('md'))",
    "[md-case](JaVaScRiPt:alert('case'))",
    "[md-tab](java\tscript:alert('tab'))",
    "[md-data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[md-vb](vbscript:msgbox('vb'))",
    "[md-entity](&#106;avascript:alert('entity'))",
    "<iframe src=\"javascript:alert('iframe')\"></iframe>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert('meta')\">",
    "<base href=\"javascript:alert('base')//\">",
    "<style>@import 'javascript:alert(1)';</style>",
    "<math><mi xlink:href=\"javascript:alert('math')\">x</mi></math>",
    "\" onmouseover=\"alert('attr')\" x=\"",
    "' autofocus onfocus='alert(\"focus\")' x='",
    "{{ 7*7 }} {% for x in range(3) %}loop{% endfor %} ${7*7} {0.__class__}",
    "</textarea><script>alert('textarea')</script>",
    "</title><script>alert('title')</script>",
    "</style><script>alert('style')</script>",
    "--><script>alert('comment')</script><!--",
    "]]><script>alert('cdata')</script><![CDATA[",
    "<![CDATA[<script>alert('cdata2')</script>]]>",
    "https://example.org/\"><script>alert('url')</script>",
    "<form action=\"javascript:alert('form')\"><button>go</button></form>",
    "\u202eevil\u202c \u2066isolate\u2069 \x00\x0b\x1f control",
]
SAFE_URL = re.compile(r"^(https?:|mailto:|(\.\./)?[\w.-]+(/[\w.-]+)*\.(html|md|json|xml)$)")


def _publish_corpus(root: Path) -> LocalStore:
    store = LocalStore(root)
    text = " ".join(PAYLOADS)
    publish_content(store, make_content("inference", DAY - dt.timedelta(days=1), text="plain"))
    publish_content(store, make_content("inference", DAY, text=text))
    for k, payload in enumerate(PAYLOADS[:6]):
        publish_content(store, make_content(f"t{k}", DAY, text=payload))
    return store


def _problems(visit_events: list[dict], dom: dict) -> list[str]:
    problems = [f"{e['method']}: {str(e.get('params'))[:200]}" for e in visit_events]
    problems += [f"handler {h}" for h in dom.get("handlers", [])]
    problems += [f"url {u!r}" for u in dom.get("urls", []) if not SAFE_URL.match(u)]
    problems += [f"<{tag}>" for tag in ("script", "iframe", "object", "embed", "form", "base", "meta-refresh")
                 if dom.get("tags", {}).get(tag)]
    return problems


def test_payloads_in_notes_titles_and_feeds_never_execute(tmp_path: Path, chromium: str) -> None:
    store = _publish_corpus(tmp_path)
    keys = [k for k in store.list("briefings/") if k.endswith((".html", ".xml"))]
    assert len(keys) >= 10
    with Browser(chromium) as browser:
        visits = {key: browser.visit((tmp_path / key).as_uri(), settle=0.3) for key in keys}
    for key, visit in visits.items():
        assert _problems(visit.events, visit.dom) == [], key
        if key.endswith(f"inference/{DAY}.html"):
            assert "{{ 7*7 }}" in visit.dom["text"] and "{% for x in range(3) %}" in visit.dom["text"]
            assert "looploop" not in visit.dom["text"]
            assert "\u202e" not in visit.dom["text"]


def test_a_briefing_page_loads_and_is_captured_at_desktop_and_phone_width(tmp_path: Path, chromium: str) -> None:
    store = LocalStore(tmp_path)
    for k in range(5):
        publish_content(store, make_content("inference", DAY - dt.timedelta(days=4 - k), net_new=k % 4))
    pages = ((f"briefings/inference/{DAY}.html", "briefing"), ("briefings/inference/index.html", "topic"))
    with Browser(chromium) as browser:
        visits = [(name, browser.visit((tmp_path / key).as_uri(), screenshots=("desktop", "phone")))
                  for key, name in pages]
    for name, visit in visits:
        assert _problems(visit.events, visit.dom) == []
        assert visit.dom["tags"].get("h1") == 1
        for width, png in visit.screenshots.items():
            assert png.startswith(b"\x89PNG") and len(png) > 5000
            save(ARTIFACTS / f"{name}-{width}.png", png)
        if name == "briefing":
            assert "inference · E1 预消化简报(2026-10-09)" in visit.dom["title"]
            assert "诚实度声明" in visit.dom["text"]
        else:
            assert visit.dom["tags"].get("rect") == 5  # one bar per date in the inline SVG
