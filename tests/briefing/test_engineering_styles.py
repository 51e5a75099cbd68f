"""Contract: the briefing's judgment does not depend on how a note heads its entries.

One note (tests/inbox/heading_styles.py: a new paper with an arXiv id, two engineering entries
that share only their platform, a hedged claim about a named system, a summary after `---`) is
added to the 2026-10-09 window of the generated ten-day workspace (tests/generate/ten_days.py) in
several heading styles (`###`, `**bold**`, `**bold:**`, "1.", 「一、」, "条目#1 ·", "Increment 1 -").
Every style gives the same NET-new ids, the same engineering increments (by title and sources) and
the same pending subjects as the `###` note, and none of them is empty: the paper is NET-new, the
two platform-sharing entries are two increments, and the hedged claim is pending.
The sample's own notes rewritten with `**bold**` for every `##`–`####` heading, or for `###`–`####`
only, are judged as the sample on both of its evenings (every increment with its status, the
pending subjects).
"""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from tasks.config.settings import Settings
from tests.generate.files import write_file
from tests.generate.ten_days import make_workspace
from tests.helpers import SAMPLE_WORKSPACE, briefing_json, empty_tables
from tests.inbox.heading_styles import Item, Note, render

DAY = dt.date(2026, 10, 9)
PATH = "inbox/mara/2026-10-09T1130-mara-serving-notes.md"
NOTE = Note(
    title="Serving notes · Oct 9",
    preamble=("Scope: inference engines and KV cache, last 48h.",),
    items=(
        Item("QuillServe: Elastic Expert Placement for MoE Serving", (
            "- A new paper: experts move between GPUs while serving, decode throughput up 1.6× on H200 for MoE models.",
            "- It targets vLLM and SGLang deployments of DeepSeek-style models; code promised.",
        ), tail=" (arXiv:2610.31337)", ids=("2610.31337",)),
        Item("Kimi K3 on vLLM", (
            "- Official blog: https://blog.vllm.ai/2026/10/09/kimi-k3-day-0.html, see https://github.com/vllm-project/vllm",
            "- vLLM 0.12 serves Kimi K3 from day 0; our benchmark on 8×H200: decode 1.3× faster than vLLM 0.11.",
        )),
        Item("Tiered KV cache offloading in vLLM", (
            "- New in vLLM 0.12, official docs https://docs.vllm.ai/en/latest/ and https://github.com/vllm-project/vllm",
            "- The KV cache spills to CPU memory, then to NVMe; TTFT p99 down 30% on long chats according to the release.",
        )),
        Item("Wyvern 1.2 speculative decoding claim", (
            "- Wyvern 1.2 claims 3.1× decode speed-up over vLLM with speculative decoding, 待核实：only one model measured.",
            "- 建议：在找到官方 benchmark 之前不引用。",
        )),
    ),
    summary=Item("小结", ("- Kimi K3 and tiered KV offloading are two separate vLLM increments.",)),
)
STYLES = ("h3", "bold", "bold_colon_inside", "numbered_dot", "zh_chapter", "entry_mark", "increment_mark")


def _judgment(settings: Settings, tmp_path: Path, style: str) -> dict[str, Any]:
    root = tmp_path / style
    make_workspace(root)
    write_file(root, PATH, render(NOTE, style))
    data = briefing_json(settings, root, "inference", DAY)
    mine = [i for i in data["increments"] if PATH in i["sources"]]
    return {
        "net_new": sorted(i["arxiv_id"] for i in mine if i["status"] == "net_new"),
        "engineering": sorted((i["title"], tuple(i["primary_sources"])) for i in mine if i["status"] == "engineering"),
        "pending": sorted(v["subject"] for v in data["verifications"] if PATH in v["sources"] and v["status"] == "pending"),
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, database_url: str, engine: Engine) -> dict[str, Any]:
    empty_tables(engine)
    tmp = tmp_path_factory.mktemp("reference")
    settings = Settings(_env_file=None, home=tmp / "home", database_url=database_url,  # type: ignore[call-arg]
                        storage_url=(tmp / "published").as_uri())
    return _judgment(settings, tmp, "h3")


def test_the_reference_note_is_judged(reference: dict[str, Any]) -> None:
    assert reference["net_new"] == ["2610.31337"], reference
    titles = [t for t, _ in reference["engineering"]]
    assert "Kimi K3 on vLLM" in titles and "Tiered KV cache offloading in vLLM" in titles, reference
    assert reference["pending"], reference


@pytest.mark.parametrize("style", [s for s in STYLES if s != "h3"])
def test_every_style_is_judged_as_the_reference(style: str, reference: dict[str, Any], clean_db: Engine,
                                                settings: Settings, tmp_path: Path) -> None:
    assert _judgment(settings, tmp_path, style) == reference


def _bold(text: str, deepest: int) -> str:
    """`text` with each heading of level 2 (or `deepest`, 3) to 4 outside code written as a bold line."""
    out, fence = [], False
    for line in text.split("\n"):
        fence = fence != line.startswith("```")
        m = re.match(r"(#{2,4}) (.*)$", line)
        out.append(f"**{m.group(2).strip()}**" if m and not fence and len(m.group(1)) >= deepest else line)
    return "\n".join(out)


def _verdicts(settings: Settings, root: Path, day: dt.date) -> dict[str, Any]:
    data = briefing_json(settings, root, "inference", day)
    return {"increments": sorted((i["arxiv_id"] or i["title"], i["status"]) for i in data["increments"]),
            "pending": sorted(v["subject"] for v in data["verifications"] if v["status"] == "pending")}


@pytest.mark.parametrize("day", [dt.date(2026, 10, 7), DAY])
def test_the_sample_in_bold_headings_is_judged_as_the_sample(day: dt.date, engine: Engine, settings: Settings,
                                                             tmp_path: Path) -> None:
    found = {}
    for deepest in (0, 2, 3):  # 0: the sample as it is
        empty_tables(engine)
        root = tmp_path / f"ws{deepest}"
        shutil.copytree(SAMPLE_WORKSPACE, root, symlinks=True)
        for path in (root / "inbox").rglob("*.md") if deepest else ():
            raw = path.read_bytes()
            if raw.isascii() or raw.decode("utf-8", "replace") == raw.decode("utf-8", "ignore"):  # UTF-8 notes only
                path.write_text(_bold(raw.decode("utf-8"), deepest), encoding="utf-8")
        found[deepest] = _verdicts(settings.model_copy(update={"home": tmp_path / f"home{deepest}"}), root, day)
    assert found[0]["increments"] and found[2] == found[0] and found[3] == found[0], found
