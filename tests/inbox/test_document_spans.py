"""Contract: the one parse (tasks.inbox.document) also says which lines lie in a block quote and
where each table's lines are (header, delimiter and the rows with a pipe; a pipeless line under a
table is text), so a reader of the knowledge document or a card skips them from the same parse.
"""

from __future__ import annotations

from tasks.inbox.document import read_document


def test_quoted_lines_include_a_lazy_continuation() -> None:
    doc = read_document("> a quote\n> - its item\nlazy line\n\nafter\n")
    assert doc.quoted == (True, True, True, False, False, False)


def test_a_table_ends_before_a_pipeless_line() -> None:
    doc = read_document("text\n\n| a | b |\n|---|---|\n| 1 | 2 |\n五、摘要\n\n> | q |\n> |---|\n")
    assert doc.tables == ((2, 5), (7, 9))
    assert (5, 6) in doc.blocks


def test_a_pipe_line_without_a_delimiter_row_is_a_paragraph() -> None:
    doc = read_document("| not | a table |\nmore\n")
    assert doc.tables == () and doc.blocks == ((0, 2),)
