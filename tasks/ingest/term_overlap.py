"""Which vocabulary terms can overlap in a text: the rule that lets `tasks.ingest.topics` count
matching terms without replaying the alternation (`may_overlap`, conservative: True when unsure).

Patterns are those of `tasks.judge.relevance` (`re.I`; spaces match any whitespace run, `\\s*`;
ASCII terms that start and end with a letter or digit get ASCII word boundaries). A "filterable"
term (ASCII, or no cased character) shows in the folded text (`topics.fold`) as itself,
lower-cased, with whitespace where it has spaces.
"""

from __future__ import annotations


def filterable(term: str) -> bool:
    """Whether a substring test on folded text can stand in for the term's pattern (no false negative)."""
    return all(c.isascii() or (c.lower() == c and c.upper() == c) for c in term)


def bounded(term: str) -> bool:
    """Whether the term's pattern has ASCII word boundaries around it."""
    return term.isascii() and term[:1].isalnum() and term[-1:].isalnum()


def _content(term: str) -> tuple[str, frozenset[int]]:
    """A filterable term as it shows in folded text: its characters other than spaces, lower-cased,
    and the offsets in them where a space stood (its pattern's `\\s*`: any whitespace, or none)."""
    chars: list[str] = []
    gaps = set()
    for c in term.lower():
        if c == " ":
            gaps.add(len(chars))
        else:
            chars.append(c)
    return "".join(chars), frozenset(gaps)


def may_overlap(a: str, b: str) -> bool:
    """Whether a match of term `a` and a match of term `b` can share a character of the text.

    Conservative (True when unsure). In folded text a match of a filterable term is the term,
    lower-cased, with whitespace runs where it has spaces, so a shared stretch of two matches
    has, as non-whitespace characters, a suffix of one term that is a prefix of the other, or a
    whole term inside the other. An all-whitespace shared stretch needs a term that starts or ends
    with a space (its pattern's leading or trailing `\\s*`): such terms overlap everything here.
    """
    if not (filterable(a) and filterable(b)) or a.strip(" ") != a or b.strip(" ") != b:
        return True
    if any(c.isspace() and c != " " for c in a + b):
        return True
    x, y = _content(a)[0], _content(b)[0]
    if y[0] not in x and x[0] not in y:
        return False  # every way of sharing characters puts one term's first character in the other
    if bounded(a) and bounded(b):
        return _bounded_overlap(a, b) or _bounded_overlap(b, a)
    return strings_overlap(x, y)


def strings_overlap(x: str, y: str) -> bool:
    """Whether an occurrence of `x` and one of `y` can share a character (as substrings)."""
    if x in y or y in x:
        return True
    return any(x.endswith(y[:k]) or y.endswith(x[:k]) for k in range(1, min(len(x), len(y)) + 1))


def _bounded_overlap(a: str, b: str) -> bool:
    """Whether a match of `b` can start inside (or where) a match of `a` starts, both bounded terms.

    A bounded match starts where the character before it is not an ASCII alphanumeric and ends
    where the next one is not: where `b` starts inside `a`, `a` must have such an edge (a
    non-alphanumeric character or a space just before), and where one match ends inside the
    other, the other must have an edge there too. ("serving" and "GPU" share a "g", but no match
    of GPU can start inside "serving".)
    """
    (x, x_gaps), (y, y_gaps) = _content(a), _content(b)
    for t in range(len(x)):
        if t and t not in x_gaps and x[t - 1].isalnum():
            continue  # `b` cannot start here: the character before would be alphanumeric
        shared = min(len(x) - t, len(y))
        if x[t : t + shared] != y[:shared]:
            continue
        if len(x) - t < len(y) and shared not in y_gaps and y[shared].isalnum():
            continue  # `a` cannot end inside `b` here
        if len(y) < len(x) - t and t + len(y) not in x_gaps and x[t + len(y)].isalnum():
            continue  # `b` cannot end inside `a` here
        return True
    return False
