"""Contract: a product module's docstring states its contract in a few lines, and no comment or
docstring in product code cites a measured figure by date or commit.

Product code is `flows/`, `tasks/`, `predigest/` and `db/` (migrations aside: their docstring is
Alembic's header). Detail beyond the contract belongs in docs/ or at the function it concerns;
measured figures belong in benchmarks/. The AST and tokens are read, nothing is imported.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("flows", "tasks", "predigest", "db")
MAX_LINES = 15

# A date (2026-12-05) or a commit hash next to a measuring word: "0.6 s on 2026-12-01", "(abc1234: 12 ms)".
_STAMP = re.compile(r"\b(?:20\d\d-\d\d(?:-\d\d)?|[0-9a-f]{7,40})\b")
_MEASURE = re.compile(r"\b(?:\d+(?:\.\d+)?\s*(?:ms|µs|s|min|MB|GB|%|x)|measured|benchmark(?:ed)?|faster|slower)\b",
                      re.IGNORECASE)


def product_files() -> list[Path]:
    return sorted(p for root in PRODUCT for p in (ROOT / root).rglob("*.py")
                  if "migrations" not in p.relative_to(ROOT).parts)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def docstring_lines(path: Path) -> int:
    """Lines the module docstring spans in the file, quotes included; 0 without one."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if ast.get_docstring(tree, clean=False) is None:
        return 0
    node = tree.body[0]
    return (node.end_lineno or node.lineno) - node.lineno + 1


def stamped_measurements(path: Path) -> list[str]:
    """Comments and docstrings that cite a date or a commit hash beside a measured figure."""
    source = path.read_text(encoding="utf-8")
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT or (tok.type == tokenize.STRING and tok.string.lstrip("rbuRBU").startswith(('"""', "'''"))):
            for line in tok.string.splitlines():
                if _STAMP.search(line) and _MEASURE.search(line):
                    found.append(f"{_rel(path)}:{tok.start[0]}: {line.strip()}")
    return found


def test_product_files_found() -> None:
    assert len(product_files()) > 50


@pytest.mark.parametrize("path", product_files(), ids=_rel)
def test_module_docstring_is_short(path: Path) -> None:
    lines = docstring_lines(path)
    assert lines <= MAX_LINES, (
        f"{_rel(path)}: module docstring of {lines} lines (at most {MAX_LINES}): state the contract; "
        "move detail to docs/ or to the function it concerns")


def test_no_comment_cites_a_dated_measurement() -> None:
    found = [hit for path in product_files() for hit in stamped_measurements(path)]
    assert not found, "measured figures belong in benchmarks/, not in comments:\n" + "\n".join(found)


def test_checks_catch_what_they_name(tmp_path: Path) -> None:
    long = tmp_path / "long.py"
    long.write_text('"""' + "line\n" * MAX_LINES + '"""\n', encoding="utf-8")
    assert docstring_lines(long) == MAX_LINES + 1
    stamped = tmp_path / "stamped.py"
    stamped.write_text("x = 1  # 0.6 s on 2026-12-01\ny = 2  # 2026-13-45 is not a date\n", encoding="utf-8")
    assert [hit.split(":")[1] for hit in stamped_measurements(stamped)] == ["1"]
