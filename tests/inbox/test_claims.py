"""The fast scans behind parse_note agree with the plain rules they replace.

tasks.inbox.claims / tasks.inbox.segment / tasks.common.arxiv_ids rewrite several regexes so the engine
can skip ahead (a leading character class, an anchor on a rare character, atomic digits) and replace
per-line loops by whole-text scans. Each test below runs the rewritten code and a frozen copy of
the rule as it was first written (the `_rule_*` oracles) over many seeded random texts built from
the characters that matter, and pins a few tricky lines by hand.
"""

from __future__ import annotations

import bisect
import random
import re
import sys

import pytest

from tasks.common import arxiv_ids
from tasks.common.arxiv_ids import find_id_spans, find_ids
from tasks.inbox import claims, numbers, segment
from tasks.inbox.notes import parse_note
from tasks.inbox.numbers import find_numbers

# --- oracles: the rules as first written ----------------------------------------------------------
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[kKM]?"
_RULE_NUMBER = re.compile(
    rf"(?<![A-Za-z0-9_.§/#\\])(?P<value>▲\s?\d[\d,]*|(?:[~≈<>≤≥±+\-−]|约)?\s?{_NUM}(?:\s?[–—~]\s?{_NUM}|-{_NUM})?\+?"
    r"(?:\s?(?P<word>tokens/s|tok/s|req/s|GB/s|TB/s|TFLOPS|TPS|QPS|ms|GB|MB|KB|TB|s)(?![A-Za-z0-9])"
    r"|(?P<sym>[×x](?![A-Za-z0-9])|[%％★▲])))"
)
_RULE_ITEM = re.compile(r"( {0,12})(?:[-*+]|(\d{1,3})[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(?=\S)")


def _rule_plain(s: str) -> str:
    return re.sub(r"\s+", " ", s.replace("**", "").replace("__", "").replace("`", "")).strip()


def _rule_numbers(line: str, out: list[dict[str, str]], seen: set[tuple[str, str]]) -> None:
    found = list(_RULE_NUMBER.finditer(line))
    ids, k = _rule_find_ids(line), 0
    item = _RULE_ITEM.match(line)
    breaks = [(b.start(), b.end()) for b in re.finditer(r"[。！？!?；;，]|, ", line)]
    for m in found:
        while k < len(ids) and ids[k][4] <= m.start():
            k += 1
        if k < len(ids) and ids[k][3] < m.end():
            continue
        value = m.group("value").strip()
        unit = m.group("word") or m.group("sym") or "▲"
        unit = {"x": "×", "％": "%"}.get(unit, unit)
        if line.lstrip().startswith("|"):
            part = line if len(line) <= 300 else line[max(0, m.start() - 150) : m.end() + 150]
            context = " | ".join(_rule_plain(c) for c in part.strip().strip("|").split("|"))
        else:
            b = bisect.bisect_right(breaks, (m.start(), len(line)))
            lo = max(breaks[b - 1][1] if b else 0, item.end() if item else 0, m.start() - 120)
            b = bisect.bisect_left(breaks, (m.end(), -1))
            hi = min(breaks[b][0] if b < len(breaks) else len(line), m.end() + 120)
            context = _rule_plain(line[lo:hi]).lstrip("-*+> ")
        if len(context) > 80:
            cut = max(0, min(context.find(value) - (80 - len(value)) // 2, len(context) - 80))
            context = context[cut : cut + 80].strip()
        if (value, context) not in seen:
            seen.add((value, context))
            out.append({"value": value, "unit": unit, "context": context})


def _rule_find_ids(text: str) -> list[tuple[str, str | None, int | None, int, int]]:
    # Ids are read with every script's digits and full-width forms as ASCII; the raw form is as written.
    original, text = text, text.translate(arxiv_ids._to_ascii_table())
    found, taken = [], []
    explicit = re.compile(
        r"(?P<prefix>arxiv\.org/(?:abs|pdf|html)/|arxiv\s*[:：]\s*|arxiv\s+(?=\d)|(?<=10\.48550/)arxiv\.(?=\d))"
        r"(?P<token>[A-Za-z0-9./-]+)", re.I
    )
    for m in explicit.finditer(text):
        token = m.group("token").rstrip(".,;:)）]/-")
        start, end = m.start(), m.start("token") + len(token)
        if m.group("prefix")[5:9].lower() == ".org":
            head = re.search(r"(?:https?://)?(?:www\.|export\.)?\Z", text[max(0, start - 16) : start], re.I)
            start -= len(head.group(0)) if head else 0
        elif m.group("prefix")[5:6] == ".":
            head = re.search(r"(?:(?:https?://)?(?:dx\.)?doi\.org/|doi:\s*)?10\.48550/\Z",
                             text[max(0, start - 40) : start], re.I)
            start -= len(head.group(0)) if head else 0
        parsed = arxiv_ids.canonicalize(token)
        if parsed is None and not re.search(r"\d{4}", token):
            continue
        found.append((original[start:end], parsed[0] if parsed else None, parsed[1] if parsed else None, start, end))
        taken.append((start, end))
    for m in re.finditer(r"(?:https?://)?(?:www\.)?huggingface\.co/papers/(\d{4}\.\d{4,5}(?:v\d+)?)(?![\w.])", text, re.I):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            parsed = arxiv_ids.canonicalize(m.group(1))
            found.append((original[m.start():m.end()], parsed[0] if parsed else None, parsed[1] if parsed else None,
                          *m.span()))
            taken.append(m.span())
    bare_new = re.compile(r"(?<![\w.\-/])(?P<token>\d{4}\.\d{4,5}(?:v\d+)?)(?![\w]|\.\d)")
    bare_old = re.compile(r"(?<![\w.\-/])(?P<token>[a-z][a-z-]*(?:\.[A-Za-z-]+)?/\d{7}(?:v\d+)?)(?![\w])")
    for pattern in (bare_new, bare_old):
        for m in pattern.finditer(text):
            start, end = m.span("token")
            if any(a < end and start < b for a, b in taken):
                continue
            if parsed := arxiv_ids.canonicalize(m.group("token")):
                found.append((original[start:end], parsed[0], parsed[1], start, end))
            elif pattern is bare_old and re.sub(r"v\d+$", "", m.group("token")).split("/")[0].split(".")[0].lower() \
                    in arxiv_ids.OLD_ARCHIVES:
                found.append((original[start:end], None, None, start, end))  # hep-th/9913001: malformed
    return sorted(found, key=lambda x: x[3])


# --- random text from the characters that matter ---------------------------------------------------
_PIECES = [
    " ", "  ", "\t", "\u3000", "\xa0", "\x0b", "\x1c", "\u2028", "a", "H", "x", "X", "s", "k", "K", "M", "B", "_", ".", ",",
    "，", "。", "；", ", ", "|", "- ", "* ", "1. ", "  - ", "§", "/", "#", "\\", "v", "▲", "★", "×", "%", "％", "~", "≈",
    "<", ">", "≤", "≥", "±", "+", "-", "−", "约", "–", "—", "0", "1", "7", "42", "300", "2,5", "16,200", "1,234,567",
    "2.81", "0.5", "١٢", "３", "ms", "GB", "MB", "KB", "TB", "GB/s", "tok/s", "tokens/s", "req/s", "TFLOPS", "TPS", "QPS",
    "arXiv:", "arxiv ", "ARXİV：", "arXıv:", "arxiv.org/abs/", "https://www.arxiv.org/pdf/", "arXiv:\n", "2610.04646",
    "2610.0998", "0704.0001", "1501.1234", "160622148", "v2", ".pdf", "quant-ph/0201082", "math.AG/0601001",
    "待核实", "未经验证", "未经", "需核实", "不能直接信", "存疑", "unverified", "Needs Verification", "TO BE VERIFIED",
    "unconfirmed", "tbd-VERIFY", "verifier", "conference", "中文", "**", "`", "(", "（", ")", "）",
]


# Full-width forms of what an id is written with, and of the punctuation beside it: ids are read in
# ASCII, and only some characters are translated for that (tasks.common.arxiv_ids._wide).
_ID_PIECES = [*_PIECES, "ａｒＸｉｖ：", "ａｒｘｉｖ．ｏｒｇ／ａｂｓ／", "２６１０．０４６４６", "２６１０", "．", "／", "：", "＿", "－",
              "ｖ２", "ｈｕｇｇｉｎｇｆａｃｅ．ｃｏ／ｐａｐｅｒｓ／", "huggingface.co/papers/", "ｄｏｉ：", "10.48550/arXiv.",
              "１０．４８５５０／", "ｄｏｉ：10.48550/arXiv.2610.04646", "ｈｔｔｐｓ：／／arxiv.org/abs/1501.1234", "ｑｕａｎｔ－ｐｈ／０２０１０８２", "！", "？", "［", "］", "＠", "＃", "٢٦١٠"]


def _text(rng: random.Random, n: int, newlines: bool, pieces_from: list[str] = _PIECES) -> str:
    pieces = [rng.choice(pieces_from) for _ in range(rng.randrange(n))]
    if newlines:
        pieces = [p if rng.random() > 0.1 else p + "\n" for p in pieces]
    else:
        pieces = [p.replace("\n", " ") for p in pieces]
    return "".join(pieces)


# --- tests ------------------------------------------------------------------------------------------
def test_numbers_match_the_rule_line_by_line() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        rows = [_text(rng, rng.choice((30, 30, 150)), newlines=False) for _ in range(rng.randrange(1, 4))]
        code = [rng.random() < 0.1 for _ in rows]
        expected: list[dict[str, str]] = []
        seen: set[tuple[str, str]] = set()
        for row, is_code in zip(rows, code, strict=True):
            if not is_code:
                _rule_numbers(row, expected, seen)
        scanned = "\n".join(rows)
        # The rule reads a row led by "|" as a table row and one led by a marker as an item's first
        # line: the parse tells find_numbers so (a note's tree; here the rule's own reading).
        tables = {k for k, row in enumerate(rows) if row.lstrip().startswith("|")}
        items = {k for k, row in enumerate(rows) if _RULE_ITEM.match(row)}
        assert find_numbers(scanned, code, *find_id_spans(scanned), tables, items) == expected, rows


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("a~ 30% b", [("30%", "%", "a~ 30% b")]),  # the rule starts at the space: "~" follows a letter
        ("约 3 ms；x -5%，1-2%", [("约 3 ms", "ms", "约 3 ms"), ("-5%", "%", "x -5%"), ("1-2%", "%", "1-2%")]),
        ("H1-2% and 8x7B, H100×8", [("2%", "%", "H1-2% and 8x7B")]),
        ("▲ 12 · 5KB 16,200,000 tok/s", [("▲ 12", "▲", "▲ 12 · 5KB 16,200,000 tok/s"), ("5KB", "KB", "▲ 12 · 5KB 16,200,000 tok/s"),
                                        ("16,200,000 tok/s", "tok/s", "▲ 12 · 5KB 16,200,000 tok/s")]),
        ("ids 2610.04646× and arXiv:2610.04631 2×", [("2×", "×", "ids 2610.04646× and arXiv:2610.04631 2×")]),
        ("a, 5% b", [("5%", "%", "5% b")]),  # the rule starts " 5%" inside the ", " break; the clause follows it
    ],
)
def test_tricky_numbers(line: str, found: list[tuple[str, str, str]]) -> None:
    numbers = parse_note(f"## X\n{line}\n").entries[0].numbers
    assert [(n["value"], n["unit"], n["context"]) for n in numbers] == found


def test_find_ids_matches_the_rule() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        text = _text(rng, 25, newlines=True, pieces_from=_ID_PIECES)
        spans, by_line = find_id_spans(text)
        assert spans == _rule_find_ids(text), text
        assert [(m.raw, m.canonical, m.version, m.start, m.end) for m in find_ids(text)] == spans
        if by_line:  # each line's ids are its own find_ids, shifted
            at = 0
            for line in text.split("\n"):
                mine = [(r, c, v, s - at, e - at) for r, c, v, s, e in spans if at <= s <= at + len(line)]
                assert mine == _rule_find_ids(line), text
                at += len(line) + 1


def test_tricky_ids() -> None:
    assert [m.raw for m in find_ids("ARXİV:2610.04646 and arXıv: 2610.04631")] == ["ARXİV:2610.04646", "arXıv: 2610.04631"]
    spans, by_line = find_id_spans("see arXiv:\n2610.04646 and https://www.arxiv.org/abs/2610.04631v2.")
    assert [s[0] for s in spans] == ["arXiv:\n2610.04646", "https://www.arxiv.org/abs/2610.04631v2"] and not by_line
    assert find_id_spans("arXiv: see below, 1,234 and 12.5%") == ([], True)


def test_hedge_scan_is_hedge() -> None:
    rng = random.Random(13)
    for _ in range(3000):
        text = _text(rng, 30, newlines=True)
        hits = [m.span() for m in claims.note_hedges().pattern.finditer(text)]
        assert [m.span() for m in claims.note_hedges().scan.finditer(text)] == hits, text


def test_case_classes_are_what_ignorecase_matches() -> None:
    everything = "".join(map(chr, range(sys.maxunicode + 1)))
    for c in sorted(set("".join(claims.note_hedges().markers) + "arxiv")):
        if c.isascii() and c.isalpha():
            assert set(re.findall(re.escape(c), everything, re.I)) == set(re.findall(claims._any_case(c), everything))
    assert set(re.findall(r"[^\S\n]", everything)) == numbers._ROW_SPACE


def test_scan_hints_find_every_structural_line() -> None:
    rng = random.Random(19)
    pieces = ["#", "## ", "   #", "    #", "```", "~~~", "  ```", "---", "- - -", "***", "___", "==", "--", "\t-", "| a |",
              "text", "> q", "- x", " ", "\u3000", "`", "~"]
    for _ in range(3000):
        lines = ["".join(rng.choice(pieces) for _ in range(rng.randrange(4))) for _ in range(rng.randrange(1, 10))]
        code, hr, heads = segment.scan(lines, "\n".join(lines))
        assert (code, hr, heads) == _rule_scan(lines), lines


def _rule_scan(lines: list[str]) -> tuple[list[bool], list[bool], dict[int, tuple[int, str, int]]]:
    code, hr = [False] * len(lines), [False] * len(lines)
    heads: dict[int, tuple[int, str, int]] = {}
    fence, i = "", 0
    while i < len(lines):
        line = lines[i]
        if fence:
            code[i] = True
            if line.strip().startswith(fence) and not line.strip().lstrip(fence[0]):
                fence = ""
        elif m := re.match(r" {0,3}(`{3,}|~{3,})", line):
            code[i], fence = True, m.group(1)
        elif atx := segment._atx(line):
            heads[i] = (atx[0], atx[1], 1)
        else:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if (len(nxt) >= 2 and nxt == nxt[0] * len(nxt) and nxt[0] in "=-" and line.strip()
                    and not line.lstrip().startswith("|") and not line.lstrip().startswith((">", "- ", "* ", "+ "))
                    and (i == 0 or not lines[i - 1].strip() or i - 1 in heads or hr[i - 1])):
                heads[i] = (1 if nxt[0] == "=" else 2, line.strip(), 2)
                i += 2
                continue
            hr[i] = segment.is_hr(line)
        i += 1
    return code, hr, heads


def test_plain_is_the_regex_rule() -> None:
    rng = random.Random(23)
    for _ in range(2000):
        s = _text(rng, 20, newlines=True)
        assert claims.plain(s) == _rule_plain(s)


def test_hedge_markers_spelled_with_characters_that_ignorecase_folds() -> None:
    """`UNVERİFIED` (dotted capital I) and `needſ verification` (long s) match HEDGE under re.I but do
    not lower() onto the listed marker; they are still read as hedges and do not collapse the note."""
    from tasks.inbox.notes import parse_note

    note = "# Day\n\n## 1 · First\n\nThroughput 2x, UNVERİFIED.\n\n## 2 · Second\n\nLatency claim needſ verification.\n"
    parsed = parse_note(note)
    assert [e.title for e in parsed.entries] == ["First", "Second"]
    assert [h["marker"] for e in parsed.entries for h in e.hedges] == ["unverified", "needs verification"]
