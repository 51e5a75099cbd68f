"""Contract (issue 47, point 5): one store per workspace.

Two workspaces sharing a PREDIGEST_HOME (and so its database) publish by default to folders of
their own, `published/<workspace key>`: neither overwrites an object of the other, each page links
only objects of its own folder (its proposal made from its own knowledge document), and no row of
one workspace enters the other's briefing: the second workspace's briefing is byte for byte the
one a database of its own gives. A store set by PREDIGEST_STORAGE_URL records the first workspace
that publishes to it; a second one is refused with one line, before it writes anything. Workspaces
are generated (tests/generate/replay.py), the second one with a note and a document line of its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest
from sqlalchemy import Engine, create_engine, text

from predigest.cli_checks import UsageError, check_storage
from tasks.config.settings import Settings, with_run_parameters, workspace_key
from tasks.model.keys import briefing_keys, proposal_keys, site_keys
from tasks.publish.storage import open_store
from tasks.publish.workspace_store import OWNER_KEY, StoreTaken, claim_store
from tasks.stages.briefed_topics import topics_for
from tasks.stages.briefings import BriefingResult, brief
from tests.generate.files import write_file
from tests.generate.replay import KNOWLEDGE, TOPIC, day_of, write_day
from tests.helpers import ingest_all, published_store

DAY = day_of(2)
OWN_PAPER = "2611.00099"


def _workspace(root: Path, own: bool) -> Path:
    for index in (1, 2):
        write_day(root, index)
    if own:  # what makes the second workspace's briefing and proposal its own
        write_file(root, f"inbox/tom/{DAY.isoformat()}T0900-tom-inference.md",
                   f"# Tom 的推理笔记\n\n## 条目1 · TileKV: Tiled KV Cache Serving（arXiv:{OWN_PAPER}）\n\n"
                   "- 新的 KV cache 分块调度，vLLM 上吞吐提升 30%。\n")
        doc = root / KNOWLEDGE / f"{TOPIC}.md"
        doc.write_text(doc.read_text(encoding="utf-8") + "- arXiv:2401.00001 — Only In B（cited 2026-07-14）\n",
                       encoding="utf-8")
    return root


def _brief(settings: Settings, root: Path) -> BriefingResult:
    ref = ingest_all(settings, root)
    (topic,) = topics_for(settings, root, [TOPIC])
    return brief(settings, ref, topic, DAY)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _links(html: str) -> list[str]:
    return [h for h in re.findall(r'href="([^"]+)"', html) if not re.match(r"[a-z]+:|#", h)]


def test_two_workspaces_sharing_a_home_publish_apart(
        clean_db: Engine, database_url: str, migrated_database: Callable[[str], str], tmp_path: Path) -> None:
    home = Settings(_env_file=None, home=tmp_path / "home", database_url=database_url)  # type: ignore[call-arg]
    a, b = _workspace(tmp_path / "a", own=False), _workspace(tmp_path / "b", own=True)
    sa, sb = with_run_parameters(home, a), with_run_parameters(home, b)
    assert sa.storage_root_url != sb.storage_root_url
    folder_a = Path(open_store(sa.storage_root_url).url_for(OWNER_KEY)).parent
    folder_b = Path(open_store(sb.storage_root_url).url_for(OWNER_KEY)).parent
    assert folder_a.parent == folder_b.parent == (tmp_path / "home" / "published").resolve()
    assert folder_b.name == workspace_key(b) and folder_b.name.startswith("b-")

    assert _brief(sa, a).written
    before = _files(folder_a)
    result_b = _brief(sb, b)
    assert result_b.written and Path(result_b.markdown_url).is_relative_to(folder_b)
    assert _files(folder_a) == before  # nothing of A's was touched by B's run
    md_key, json_key = briefing_keys(TOPIC, DAY)
    store_a, store_b = published_store(sa), published_store(sb)
    assert OWN_PAPER in (store_b.get(md_key) or b"").decode() and OWN_PAPER not in (store_a.get(md_key) or b"").decode()

    # B's page links only objects of B's folder, each there; its proposal is made from B's document.
    page_key = site_keys(TOPIC, DAY, "zh")["page"]
    page = (store_b.get(page_key) or b"").decode("utf-8")
    links = _links(page)
    assert PurePosixPath(proposal_keys(TOPIC, DAY)[0]).name in links
    for link in links:
        target = (folder_b / PurePosixPath(page_key).parent / link.split("#")[0]).resolve()
        assert target.is_relative_to(folder_b) and target.is_file(), link
    diff = (store_b.get(proposal_keys(TOPIC, DAY)[0]) or b"").decode("utf-8")
    own_doc = (b / KNOWLEDGE / f"{TOPIC}.md").read_bytes()
    assert f"(sha256 {hashlib.sha256(own_doc).hexdigest()})" in diff

    # The database keeps them apart: one briefing row each, and B's briefing is what B alone gives.
    with clean_db.connect() as conn:
        rows = conn.execute(text("SELECT w.root, b.markdown_key FROM briefings b JOIN workspaces w "
                                 "ON w.id = b.workspace_id ORDER BY w.root")).all()
    assert [(r.root, r.markdown_key) for r in rows] == [(str(a.resolve()), md_key), (str(b.resolve()), md_key)]
    alone_url = migrated_database("predigest_alone")
    alone = sb.model_copy(update={"database_url": alone_url, "storage_url": (tmp_path / "alone").as_uri()})
    try:
        _brief(alone, b)
    finally:
        create_engine(alone_url).dispose()
    alone_store = open_store(alone.storage_root_url)
    for key in (md_key, json_key):
        assert alone_store.get(key) == store_b.get(key), key

    # Re-runs of either write nothing and give the same bytes.
    after = {"a": _files(folder_a), "b": _files(folder_b)}
    assert not _brief(sa, a).written and not _brief(sb, b).written
    assert {"a": _files(folder_a), "b": _files(folder_b)} == after


def test_a_configured_store_refuses_a_second_workspace(clean_db: Engine, settings: Settings, tmp_path: Path) -> None:
    a, b = _workspace(tmp_path / "a", own=False), _workspace(tmp_path / "b", own=True)
    sa, sb = with_run_parameters(settings, a), with_run_parameters(settings, b)
    assert sa.storage_root_url == sb.storage_root_url == settings.storage_url  # used as set
    _brief(sa, a)
    folder = Path(open_store(settings.storage_root_url).url_for(OWNER_KEY)).parent
    before = _files(folder)
    assert check_storage(sa) == settings.storage_url
    with pytest.raises(UsageError) as refused:
        check_storage(sb)  # what `predigest run` says before it starts anything
    message = str(refused.value)
    assert "\n" not in message and workspace_key(a) in message and str(b) in message
    assert "PREDIGEST_STORAGE_URL" in message
    with pytest.raises(StoreTaken):
        _brief(sb, b)
    assert _files(folder) == before


def test_a_bucket_records_its_workspace(s3_bucket: str, tmp_path: Path) -> None:
    store = open_store(f"s3://{s3_bucket}/team")
    a, b = tmp_path / "a", tmp_path / "b"
    claim_store(store, a)
    claim_store(store, a)  # the same workspace again: nothing changes
    with pytest.raises(StoreTaken, match=workspace_key(a)):
        claim_store(store, b)
    assert store.list("") == [OWNER_KEY]
    other = open_store(f"s3://{s3_bucket}/other")
    claim_store(other, b)  # another prefix is another store
    store.put(OWNER_KEY, b"not json", "application/json")
    with pytest.raises(StoreTaken, match="not predigest's record"):
        claim_store(store, a)
