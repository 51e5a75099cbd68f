"""Contract: product code imports only downward, no two files import each other in a loop, and no
test imports benchmarks (benchmarks sit above everything and import the tests' generators).

The rooms, from the ground up, are `ROOMS`. A module may import its own room or a room below it,
never one above, not even under TYPE_CHECKING or inside a function. Files may not form an import
circle (any import counts, wherever it is written). The AST is read, nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# From the ground up: the lower a room, the fewer rooms it may use.
ROOMS = [
    "tasks.config",  # settings, topics, judgment: the configuration everything reads
    "db",  # models, engine, migrations
    "tasks.common",  # text, ids, limits, guards shared by every stage
    "tasks.model",  # windows and the shared types stages hand each other
    "tasks.inbox",  # notes, and the one CommonMark parse that cards and the knowledge document read too
    "tasks.cards",
    "tasks.queue",
    "tasks.knowledge",
    "tasks.ingest",
    "tasks.feeds",
    "tasks.judge",
    "tasks.verify",
    "tasks.window",  # what a briefing reads of its window, and its papers as judged
    "tasks.increments",  # engineering increments
    "tasks.render",  # the briefing as markdown and JSON, and its wording
    "tasks.briefing",  # one briefing assembled from the above
    "tasks.publish",
    "tasks.merge",  # the noon merge: proposal, document, changelog, its stage
    "tasks.score",  # labelled evenings against briefings' JSON twins (`predigest score`)
    "tasks.stages",
    "tasks.backfill",  # past dates: the stages in sequence, over lanes
    "tasks",  # the package itself
    "flows",
    "predigest",  # the face: CLI, explain, the local stack
    "benchmarks",
]
PACKAGES = ("tasks", "db", "flows", "predigest", "benchmarks")


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    parts = module.split(".")
    # tasks/<room>/… and the room's package itself; a top-level tasks/*.py module is in room "tasks".
    if parts[0] == "tasks" and len(parts) > 1 and f"tasks.{parts[1]}" in ROOMS:
        return f"tasks.{parts[1]}"
    return parts[0]


def _product_files() -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "versions" not in path.parts:  # alembic revisions import only alembic and sqlalchemy
                files.append(path)
    return files


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a product package in `path`, however nested."""
    module = _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from tasks import run` names a module of `tasks`: count the module, not the package.
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.append((node.lineno, sub if _is_module(sub) else target))
    return [(line, name) for line, name in found if name.split(".")[0] in PACKAGES]


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_rooms_cover_every_product_package() -> None:
    rooms = {_room(_module(path)) for path in _product_files()}
    assert rooms <= set(ROOMS), rooms - set(ROOMS)


def test_no_import_runs_up() -> None:
    height = {room: n for n, room in enumerate(ROOMS)}
    upward = []
    for path in _product_files():
        here = _room(_module(path))
        for line, target in _imports(path):
            there = _room(target)
            if height[there] > height[here]:
                upward.append(f"{path.relative_to(ROOT)}:{line} ({here}) imports {target} ({there})")
    assert not upward, "imports that run up:\n" + "\n".join(upward)


def test_no_circle_between_files() -> None:
    graph: dict[str, set[str]] = {}
    for path in _product_files():
        name = _module(path)
        graph[name] = {t for _, t in _imports(path) if t != name and _is_module(t) and not _is_package(t)}
    circles = [c for c in _strongly_connected(graph) if len(c) > 1]
    assert not circles, "files that import each other in a loop: " + "; ".join(" <-> ".join(sorted(c)) for c in circles)


def _is_package(name: str) -> bool:
    return (ROOT.joinpath(*name.split(".")) / "__init__.py").is_file()


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative (the graph is a few hundred files)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        component.add(top)
                        if top == node:
                            break
                    out.append(component)
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


@pytest.mark.parametrize("room", ROOMS)
def test_each_room_exists(room: str) -> None:
    assert _is_module(room), f"{room} is listed in ROOMS but is not a package"


def test_tests_never_import_benchmarks() -> None:
    """Benchmarks sit above everything, tests included: they import the tests' generators, never
    the other way round."""
    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            found += [f"{path.relative_to(ROOT)}:{node.lineno}" for n in names if n.split(".")[0] == "benchmarks"]
    assert not found, "tests that import benchmarks: " + ", ".join(found)
