"""Markdown table rows, as every parser of the workspace reads them."""

from __future__ import annotations


def split_table_row(line: str) -> list[str]:
    """Cells of a markdown table row, stripped; outer pipes optional."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [cell.strip() for cell in body.split("|")]
