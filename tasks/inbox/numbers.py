"""Numbers with a unit in an entry's rows, each with the clause (or table row) it sits in.

The rows are the entry's heading and body lines, `scanned` is them joined by "\\n", and a code row
has no numbers. Which rows are table rows and which start a list item comes from the caller (the
entry's part of its note's one parse, `tasks.inbox.document.Part`), never from classifying lines
here; of an item's first line only where its marker ends is read. One scan of `scanned` replaces one per row: the pattern cannot match a "\\n" (it
says `[^\\S\\n]` where the row rule says \\s), so its matches are exactly each row's, and only rows
holding a number are looked at again. Moving from match to row only walks forward: linear time.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Container

from tasks.common.arxiv_ids import IdSpan, find_id_spans
from tasks.inbox.claims import plain, table_row
from tasks.inbox.part_text import ITEM_MARKER

# The digits are atomic, (?>…): giving some back can only leave a digit, "," or "." next, and nothing
# that may follow a number starts with one, so backtracking into them never finds a match; it only
# costs time (on every arXiv id and date).
_NUM = r"(?>(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)[kKM]?"
_NUM_AFTER_DIGIT = r"(?>(?:\d{0,2}(?:,\d{3})+|\d*)(?:\.\d+)?)[kKM]?"  # _NUM with its first digit consumed
_S = r"[^\S\n]"  # whitespace within a row
_SIGNS = r"~≈<>≤≥±+\-−约"
# Only numbers that carry a unit count. As a row would read it, the rule is
#   (?<![A-Za-z0-9_.§/#\\])(?P<value>▲\s?\d[\d,]*|(?:[~≈<>≤≥±+\-−]|约)?\s?NUM(?:\s?[–—~]\s?NUM|-NUM)?\+?UNIT)
# where the lookbehind keeps v1.5.0, §1.1, H100, 2610.04646 out. Scanning for that is most of a
# parse's time: the engine tries the lookbehind and both branches at every position. _NUMBER is
# the same rule from the number's first digit: starting with a character class lets the engine
# skip to digits, and the lookbehind is checked behind the consumed digit. The sign or space the
# rule may start with (never a digit) is added back by find_numbers(), which knows where the rule would
# have started; text holding "▲" (whose branch has no unit) is scanned with _NUMBER_VOTES, the whole
# rule, likewise starting with its first character's class. tests/inbox/test_claims.py checks both
# against the rule.
_UNIT = (rf"(?:{_S}?(?P<word>tokens/s|tok/s|req/s|GB/s|TB/s|TFLOPS|TPS|QPS|ms|GB|MB|KB|TB|s)(?![A-Za-z0-9])"
         r"|(?P<sym>[×x](?![A-Za-z0-9])|[%％★▲]))")
_NUMBER = re.compile(
    rf"(?P<value>\d(?<![A-Za-z0-9_.§/#\\]\d){_NUM_AFTER_DIGIT}(?:{_S}?[–—~]{_S}?{_NUM}|-{_NUM})?\+?{_UNIT})"
)
_NUMBER_VOTES = re.compile(
    rf"(?P<value>[▲{_SIGNS}\d](?<![A-Za-z0-9_.§/#\\].)"
    rf"(?:(?<=▲){_S}?\d[\d,]*"
    rf"|(?:(?<=[{_SIGNS}]){_S}?{_NUM}|(?<=\d){_NUM_AFTER_DIGIT})(?:{_S}?[–—~]{_S}?{_NUM}|-{_NUM})?\+?{_UNIT}))"
)
_NOT_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.§/#\\")
_SIGN = frozenset("~≈<>≤≥±+-−约")
_NOT_DIGIT_FIRST = _SIGN | {"▲"}
_ROW_SPACE = frozenset(c for c in map(chr, range(0x3001)) if c.isspace() and c != "\n")  # [^\S\n]; none above U+3000
_SIGN_OR_SPACE = _SIGN | _ROW_SPACE
_UNIT_NAMES = {"x": "×", "％": "%"}
_CLAUSE_BREAK = re.compile(r"[。！？!?；;，]|, ")


# Numbers kept per entry: past this an "entry" is a dump (a megabyte table row), and the rest would
# only cost time (tens of seconds for one such row).
MAX_NUMBERS = 1000


def find_numbers(scanned: str, code: list[bool], found: list[IdSpan], by_line: bool,
                 tables: Container[int] = (), items: Container[int] = ()) -> list[dict[str, str]]:
    """Numbers with a unit in the non-code rows, each with its clause (or table row) as context.
    `tables`: the rows that are table rows (a number's context is its row); `items`: the rows that
    start a list item (its clause never reaches back into the marker). Other rows are prose.

    `found, by_line` is find_id_spans(scanned): when by_line, a row's ids are `found`'s within it,
    so they are not looked up again (positions then stay absolute: ids of other rows never overlap).
    """
    out: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    row = at = 0
    row_end = -1  # where the current row ends ("\n" or end of text); -1 before the first
    line, skip, table, k, base, item_end = "", False, False, 0, 0, 0
    ids = found
    breaks: list[int] = []
    cells: dict[tuple[int, int], str] = {}  # table context per span, for the current row
    last = 0  # end of the previous number
    examined = 0
    for m in (_NUMBER_VOTES if "▲" in scanned else _NUMBER).finditer(scanned):
        s, e = m.span()
        if s > last and scanned[s - 1] in _SIGN_OR_SPACE and scanned[s] not in _NOT_DIGIT_FIRST:
            # Where the rule starts a number found from its first digit: at a sign and a space
            # before it, else at the sign or space, when the rule's lookbehind allows it there.
            if (s - 2 >= last and scanned[s - 1] in _ROW_SPACE and scanned[s - 2] in _SIGN
                    and (s == 2 or scanned[s - 3] not in _NOT_BEFORE)):
                s -= 2
            elif s == 1 or scanned[s - 2] not in _NOT_BEFORE:
                s -= 1
        last = e
        if s > row_end:  # the first number of a row: set the row up once
            row += scanned.count("\n", max(row_end, 0), s)
            at = scanned.rfind("\n", max(row_end, 0), s) + 1
            row_end = scanned.find("\n", s)
            row_end = len(scanned) if row_end < 0 else row_end
            skip = code[row]
            if skip:
                continue
            line = scanned[at:row_end]
            if not by_line:
                ids, k, base = find_id_spans(line)[0], 0, at
            table = row in tables
            item = ITEM_MARKER.match(line) if not table and row in items else None
            item_end = item.end() if item else 0
            # Clause breaks, found once per line so each number's clause is a pair of bisects. (A break is
            # one character, or ", ": it never starts at a number's first digit, so comparing starts suffices.)
            breaks = [b.start() for b in _CLAUSE_BREAK.finditer(line)]
            cells = {}
        elif skip:
            continue
        if ids:
            while k < len(ids) and ids[k][4] <= s - base:
                k += 1  # both lists are in text order: walk them together (ids: raw, …, start, end)
            if k < len(ids) and ids[k][3] < e - base:
                continue  # part of an arXiv id
        start, end = s - at, e - at
        value = scanned[s:e].strip()
        word, sym = m.group(2, 3)
        unit = word or (_UNIT_NAMES.get(sym, sym) if sym else "▲")
        if table:  # the row, or for a giant row the cells around the number
            span = (0, len(line)) if len(line) <= 300 else (max(0, start - 150), end + 150)
            if span not in cells:
                cells[span] = table_row(line[span[0] : span[1]])
            context = cells[span]
        else:
            lo, hi = item_end, len(line)
            if breaks:
                b = bisect.bisect_right(breaks, start)
                if b and (brk := breaks[b - 1] + (2 if line[breaks[b - 1]] == "," else 1)) > lo:
                    lo = brk
                b = bisect.bisect_left(breaks, end)
                if b < len(breaks):
                    hi = breaks[b]
            context = plain(line[max(lo, start - 120) : min(hi, end + 120)]).lstrip("-*+> ")
        if len(context) > 80:  # keep the number in view
            cut = max(0, min(context.find(value) - (80 - len(value)) // 2, len(context) - 80))
            context = context[cut : cut + 80].strip()
        if (value, context) not in seen:
            seen.add((value, context))
            out.append({"value": value, "unit": unit, "context": context})
            if len(out) >= MAX_NUMBERS:
                break
        examined += 1
        if examined >= 4 * MAX_NUMBERS:  # repeats of the same few numbers: as bounded as new ones
            break
    return out
