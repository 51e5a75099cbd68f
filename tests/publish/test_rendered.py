"""Contract of rendering a briefing once (`tasks.publish.rendered`): every output of a run comes from
its content model, the JSON twin is an output only.

- The view equals the JSON twin parsed back, key order included, so what renders from the view
  writes the bytes it wrote from the twin read back; its summary is the twin's.
- The page, the topic's site and the feed published from a rendering are what they were when the
  page was rendered from the twin parsed back.
- A run's artifact and notifications come from the summary its result carries: with every JSON twin
  gone from the store, they are still made, and say the same.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from tasks.publish.artifacts import artifact_markdown
from tasks.publish.notify import build_message
from tasks.publish.pages import date_summary, render_page
from tasks.publish.rendered import rendered
from tasks.publish.storage import LocalStore
from tests.publish.briefing_factory import make_content, publish_content

DAY = dt.date(2026, 10, 9)
HOSTILE = "javascript:alert(1) <b>x</b> ⭐ data:text/html,1"


def _ordered(value: Any) -> Any:
    """`value` with every dict as its list of (key, value) pairs: equal only when the order is too."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return value


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_view_is_the_twin_parsed_back(lang: str) -> None:
    content = make_content("inference", DAY, text=HOSTILE, paths=["inbox/alice/a.md", "https://example.org/feed"])
    briefing = rendered(content, lang)
    twin = json.loads(briefing.json_text)
    assert _ordered(briefing.view) == _ordered(twin)
    assert briefing.summary == date_summary(twin)
    assert render_page(briefing.view, lang) == render_page(twin, lang)


def test_what_is_published_is_what_the_twin_read_back_renders(tmp_path: Path) -> None:
    store = LocalStore(tmp_path)
    contents = [make_content("inference", DAY + dt.timedelta(days=k), net_new=k, text=HOSTILE) for k in range(3)]
    for content in contents:
        publish_content(store, content, "en")
    folder = tmp_path / "briefings" / "inference"
    for content in contents:
        twin = json.loads((folder / f"{content.date.isoformat()}.en.json").read_text(encoding="utf-8"))
        assert (folder / f"{content.date.isoformat()}.en.html").read_bytes() == render_page(twin, "en")
    # The site rebuilt from the stored twins (site.json gone) is the site published from the renderings.
    before = {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith("2026-")}
    (folder / "site.en.json").unlink()
    publish_content(store, contents[-1], "en")
    assert {p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith("2026-")} == before


def test_the_artifact_and_message_need_no_twin(tmp_path: Path) -> None:
    content = make_content("inference", DAY, text=HOSTILE)
    briefing = rendered(content, "zh")
    keys = {"page": "p", "feed": "f", "markdown": "m", "json": "j"}
    twin = json.loads(briefing.json_text)
    assert artifact_markdown("inference", briefing.summary, keys, "zh") == \
        artifact_markdown("inference", date_summary(twin), keys, "zh")
    message = build_message("inference", briefing.summary, "zh", "https://example.org/p", "https://example.org/f")
    assert message == build_message("inference", date_summary(twin), "zh", "https://example.org/p",
                                    "https://example.org/f")
    assert message.facts["density"] == twin["density"] and message.facts["date"] == DAY.isoformat()
