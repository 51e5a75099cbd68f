"""Contract: a topic exists only for a real knowledge document (tasks.config.topics.knowledge_folder).

A topic is a regular file `organized/knowledge/<slug>.md` inside the workspace, where the slug is
ASCII letters, digits, '-' and '_', starting with a letter or digit (at most 64 characters). A
symlink (to a file outside or even inside the workspace), a directory, a fifo, a file with an unsafe
name, or a knowledge folder that leads outside the workspace gives no topic: each entry is named
with its reason in `rejected`, printed by an all-topics run (`check_topics`), recorded with a
problem by the scan when it is a file, and never briefed (`topics_for`). Workspaces are generated.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from predigest.cli_checks import check_topics
from tasks.config.settings import Settings
from tasks.config.topics import is_safe_topic_name, knowledge_folder
from tasks.ingest.scan import scan_workspace
from tasks.stages.briefed_topics import topics_for

KINDS = ["file", "symlink_inside", "symlink_outside", "directory", "fifo"]
slugs = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,12}", fullmatch=True)
unsafe = st.sampled_from([" x", "-x", "a b", "a.b", "ä", "a\u202eb", "_x", "a" * 65, "x;y", "..x"])


def _make(root: Path, outside: Path, name: str, kind: str) -> None:
    target = root / "organized" / "knowledge" / f"{name}.md"
    if kind == "file":
        target.write_text("# Knowledge\n", encoding="utf-8")
    elif kind == "symlink_inside":
        target.symlink_to(root / "inbox" / "real.md")
    elif kind == "symlink_outside":
        target.symlink_to(outside / "secret.md")
    elif kind == "directory":
        target.mkdir()
    else:
        os.mkfifo(target)


def _workspace(base: Path) -> tuple[Path, Path]:
    root, outside = base / "ws", base / "outside"
    (root / "organized" / "knowledge").mkdir(parents=True)
    (root / "inbox").mkdir()
    (root / "inbox" / "real.md").write_text("# inside\n", encoding="utf-8")
    outside.mkdir()
    (outside / "secret.md").write_text("# outside\n", encoding="utf-8")
    return root, outside


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.one_of(slugs, unsafe), st.sampled_from(KINDS), min_size=1, max_size=6))
def test_only_regular_files_with_safe_names_are_topics(tmp_path_factory: pytest.TempPathFactory,
                                                       entries: dict[str, str]) -> None:
    root, outside = _workspace(tmp_path_factory.mktemp("topics"))
    for name, kind in entries.items():
        _make(root, outside, name, kind)
    folder = knowledge_folder(root)
    expected = sorted(n for n, k in entries.items() if k == "file" and is_safe_topic_name(n))
    assert list(folder.topics) == expected
    rejected = dict(folder.rejected)
    assert set(rejected) == {f"organized/knowledge/{n}.md" for n in entries if n not in expected}
    for name, kind in entries.items():
        reason = rejected.get(f"organized/knowledge/{name}.md")
        if kind.startswith("symlink"):
            assert reason is not None and "symlink" in reason
        elif kind in ("directory", "fifo"):
            assert reason is not None and ("directory" if kind == "directory" else "fifo") in reason
    # The scan records every rejected knowledge file (not a directory) with a problem, never as readable.
    scanned = {f.path: f for f in scan_workspace(root) if f.kind == "knowledge"}
    for name, kind in entries.items():
        f = scanned.get(f"organized/knowledge/{name}.md")
        if kind == "file" and is_safe_topic_name(name):
            assert f is not None and f.problem is None
        elif kind != "directory" and f is not None:
            assert f.problem is not None


def test_all_topics_run_names_what_it_did_not_brief(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, outside = _workspace(tmp_path)
    for name, kind in (("inference", "file"), ("rag", "symlink_inside"), ("evil", "symlink_outside"),
                       ("folder", "directory"), ("pipe", "fifo"), ("a\u202eb", "file")):
        _make(root, outside, name, kind)
    settings = Settings(home=tmp_path / "home", topics=[])
    assert check_topics(settings, root, None) == ["inference"]
    assert [t.name for t in topics_for(settings, root, None)] == ["inference"]
    err = capsys.readouterr().err
    for shown in ("rag.md", "evil.md", "folder.md", "pipe.md", "a\\u202eb.md"):
        assert f"organized/knowledge/{shown}: not a topic" in err
    assert "\u202e" not in err


def test_knowledge_folder_leading_outside_gives_no_topic(tmp_path: Path) -> None:
    root, outside = _workspace(tmp_path)
    (outside / "knowledge").mkdir()
    (outside / "knowledge" / "inference.md").write_text("# outside\n", encoding="utf-8")
    (root / "organized" / "knowledge").rmdir()
    (root / "organized" / "knowledge").symlink_to(outside / "knowledge")
    folder = knowledge_folder(root)
    assert folder.topics == () and [r for _, r in folder.rejected] == [
        "the knowledge folder leads outside the workspace; not followed"]
