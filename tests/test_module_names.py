"""Contract: a product module's base name says what it holds, once. No two modules or packages of
flows/, tasks/, predigest/ and db/ share a base name, except the parallel roles in `PARALLEL`
(the same job done for different sources, or a flow named after the idea it runs).

"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("flows", "tasks", "predigest", "db")

# Same role, parallel sources: each entry names every module allowed to hold the name.
PARALLEL = {
    "parse": {"tasks/cards/parse.py", "tasks/knowledge/parse.py", "tasks/queue/parse.py"},  # one parser per kind
    "store": {"tasks/feeds/store.py", "tasks/ingest/store.py"},  # the rows of feeds; the rows of workspace files
    # A flow named after the idea it runs.
    "backfill": {"flows/backfill.py", "tasks/backfill"},
    "feeds": {"flows/feeds.py", "tasks/feeds"},
    "inbox": {"flows/inbox.py", "tasks/inbox"},
    "merge": {"flows/merge.py", "tasks/merge"},
}



def _by_base_name() -> dict[str, set[str]]:
    """Base name -> the modules (`a/b.py`) and packages (`a/b`) that have it."""
    names: dict[str, set[str]] = defaultdict(set)
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "versions" in path.parts:  # alembic revisions are named by alembic
                continue
            rel = path.relative_to(ROOT)
            if path.name == "__init__.py":
                names[rel.parent.name].add(rel.parent.as_posix())
            else:
                names[path.stem].add(rel.as_posix())
    return names


def _collisions() -> dict[str, set[str]]:
    return {name: paths for name, paths in _by_base_name().items()
            if len(paths) > 1 and not paths <= PARALLEL.get(name, set())}


def test_parallel_roles_name_modules_that_exist() -> None:
    names = _by_base_name()
    stale = {name: paths - names.get(name, set()) for name, paths in PARALLEL.items() if paths - names.get(name, set())}
    assert not stale, f"allowed parallel roles that no longer exist: {stale}"


def test_no_two_product_modules_share_a_base_name() -> None:
    collisions = {name: sorted(paths) for name, paths in _collisions().items()}
    assert not collisions, f"modules that share a base name: {collisions}"
