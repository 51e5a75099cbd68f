"""Contract of the pages' layout in a real browser (headless Chromium), at 1280 px and at 390 px.

On a generated site (not the sample) whose sources have long paths (long English, long Chinese,
and an 80-character name with no break in it), whose cells hold long English and Chinese text,
with a day of score 0 and dates missing between the published ones, measured in the page:
- the page never scrolls sideways (document scrollWidth <= clientWidth); a table wider than its
  box scrolls inside it (overflow-x auto) and the box ends inside the viewport;
- every source cell is wider than a few characters and its file name is not broken a letter a
  line (at least 6 characters a line on average), and carries the full path as its title;
- every column whose header shows is at least its header's longest word and 4em wide, and a cell
  of a short fixed vocabulary (时间依据) stays on one line;
- the topic index's chart shows its date labels: at least two visible, inside the chart, readable
  (at least 8 px tall), not overlapping each other, the last published date among them; the
  score-0 day has a visible mark; a missing date leaves a gap wider than a day's slot.
Screenshots of each page and width are saved under `artifacts/screenshots/` (git-ignored).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from tasks.publish.storage import LocalStore
from tests.publish.briefing_factory import make_content, publish_content
from tests.publish.chromium import LAYOUT_REPORT, Browser, save

pytestmark = pytest.mark.slow
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
TOPIC = "inference"
LAST = dt.date(2026, 10, 9)
# Published dates, oldest first: 10-03, 10-04 and 10-07 are missing; 10-05 has score 0.
PUBLISHED = [dt.date(2026, 10, d) for d in (1, 2, 5, 6, 8, 9)]
QUIET = dt.date(2026, 10, 5)
PATHS = [
    "inbox/alice/2026-10-09T1450-alice-tiered-kv-cache-offloading-and-speculative-decoding-deep-dive-notes.md",
    "inbox/李雷/2026-10-09-关于分层KV缓存卸载与投机解码在多租户推理服务中的吞吐与尾延迟权衡的长篇读书笔记.md",
    "organized/paper_cards/" + "averyveryverylongunbrokencardnamewithnohyphensatallforthelayouttest" + ".md",
    "inbox/bob/2026-10-09-bob-e1prep.md",
]
TEXT = ("Tiered KV cache offloading moves cold prefix blocks to host memory and claims a 2.7x throughput "
        "gain on H100 with no TTFT regression, but the benchmark configuration is not published. "
        "分层 KV 缓存卸载把冷的前缀块移到主机内存，声称在 H100 上吞吐提升 2.7 倍且首字延迟不变，但基准配置没有公开，"
        "在找到官方 benchmark 之前不引用。")


def _site(root: Path) -> LocalStore:
    store = LocalStore(root)
    for k, day in enumerate(PUBLISHED):
        quiet = day == QUIET
        publish_content(store, make_content(TOPIC, day, net_new=0 if quiet else k % 3 + 1, text=TEXT,
                                            neighbours=not quiet, paths=PATHS))
    return store


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("layout")
    _site(root)
    pages = {"briefing": f"briefings/{TOPIC}/{LAST}.html", "topic": f"briefings/{TOPIC}/index.html",
             "site": "briefings/index.html"}
    out = {}
    with Browser(chromium) as browser:
        for name, key in pages.items():
            visit = browser.visit((root / key).as_uri(), screenshots=("desktop", "phone"), measure=LAYOUT_REPORT)
            for width, png in visit.screenshots.items():
                save(ARTIFACTS / f"layout-{name}-{width}.png", png)
            for width, report in visit.measures.items():
                out[f"{name}-{width}"] = report
    return out


CASES = [f"{page}-{width}" for page in ("briefing", "topic", "site") for width in ("desktop", "phone")]


@pytest.mark.parametrize("case", CASES)
def test_the_page_never_scrolls_sideways_and_wide_tables_scroll_in_their_box(
    measured: dict[str, dict[str, Any]], case: str
) -> None:
    report = measured[case]
    assert report["viewport"] == (1280 if case.endswith("desktop") else 390)
    assert report["page"]["scroll"] <= report["page"]["client"], report["page"]
    assert report["containers"], "no table box on the page"
    for box in report["containers"]:
        assert box["overflowX"] in ("auto", "scroll"), box
        assert box["right"] <= report["viewport"] + 0.5, box


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_source_cells_show_file_names_whole_words_with_the_full_path_on_hover(
    measured: dict[str, dict[str, Any]], width: str
) -> None:
    sources = measured[f"briefing-{width}"]["sources"]
    assert len(sources) == 2 * len(PATHS)  # sections 一 and 六
    assert sorted({s["title"] for s in sources}) == sorted(PATHS)
    for cell in sources:
        assert cell["width"] >= 6 * cell["font"], cell
        assert cell["text"] == cell["title"].rpartition("/")[2]
        assert cell["lines"] >= 1 and len(cell["text"]) / cell["lines"] >= 6, cell


@pytest.mark.parametrize("case", CASES)
def test_no_column_is_narrower_than_its_header_word_or_four_em(measured: dict[str, dict[str, Any]], case: str) -> None:
    report = measured[case]
    if case.endswith("desktop") or case.startswith(("topic", "site")):
        assert report["columns"], "no table header shows"
    for column in report["columns"]:
        assert column["width"] >= column["word"] - 0.5, column
        assert column["width"] >= 4 * column["em"] - 0.5, column
    for cell in report["fixed"]:
        assert cell["lines"] == 1, cell


@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_the_chart_shows_date_labels_a_zero_day_mark_and_gaps(measured: dict[str, dict[str, Any]], width: str) -> None:
    report = measured[f"topic-{width}"]
    svg = report["svg"]
    visible = sorted((label for label in report["labels"] if label["visible"]), key=lambda label: label["left"])
    assert len(visible) >= 2, report["labels"]
    assert LAST.isoformat()[5:] in {label["text"] for label in visible}
    for label in visible:
        assert svg["left"] - 0.5 <= label["left"] and label["right"] <= svg["right"] + 0.5, label
        assert label["bottom"] <= svg["bottom"] + 0.5 and label["height"] >= 8, label
    for before, after in zip(visible, visible[1:], strict=False):
        assert before["right"] <= after["left"], (before, after)
    bars = report["bars"]
    assert [b["date"][:10] for b in bars] == [d.isoformat() for d in PUBLISHED]
    zero = [b for b in bars if b["zero"]]
    assert [b["date"][:10] for b in zero] == [QUIET.isoformat()] and zero[0]["height"] >= 1.5
    slot = bars[1]["left"] - bars[0]["left"]  # 10-01 and 10-02 are neighbours
    gaps = {PUBLISHED[k + 1].isoformat(): bars[k + 1]["left"] - bars[k]["left"] for k in range(len(bars) - 1)}
    assert gaps["2026-10-05"] == pytest.approx(3 * slot, abs=1) and gaps["2026-10-08"] == pytest.approx(2 * slot, abs=1)
