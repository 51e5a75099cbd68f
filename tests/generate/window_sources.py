"""One window of many short notes: the inputs of the cross-source scaling test (issue 23).

`notes(n)` is n short notes on DAY, by a handful of authors, in Chinese, English or both, the way the
team writes a busy day: each note names a paper or two (its own, and every third note also an
earlier note's paper, so papers are shared, each by at most three notes), states a number or two
(notes sharing a paper give it different numbers, as the numbers check meets them; every other note
hedges its numbers), and, by turns, a hedged claim about a coined system (pending, and the next note
says it is confirmed: lines of the paper's entry, or with `named` an entry of its own, a subject with
no arXiv id), or an engineering increment (a release and its benchmark, merged across two notes).
No thing is named by more than a few notes, so what a briefing says of them grows linearly in n; a
stage whose work grows faster compares every source's items with every other's. (The named
subjects share the word "router" / "路由器", as real ones share words.)

`notes(n)` starts with `notes(m)` for m < n, so a bigger window holds the smaller one's notes.
Coined names (`coined`) share no letter between syllables, so no two are near each other (a fuzzy
name match would join them).
"""

from __future__ import annotations

import datetime as dt

DAY = dt.date(2026, 10, 9)
KNOWLEDGE = ("# inference\n\nversion: v1 · updated: 2026-10-08 12:00 · citations: 0\n\n## §1 Serving\n\n"
             "- KV cache paging for vLLM (arXiv:2601.00001) [anchored 2026-10-01]\n")
AUTHORS = ("amy", "jay", "lena", "tom", "kai", "mia", "raj")
_SYLLABLES = ("bcd", "fgh", "jkl", "mnp", "qrs", "tvw", "xyz", "aeo")


def coined(k: int) -> str:
    """The k-th coined system name (k < 4096): "Qu" and k's four octal digits as syllables."""
    return "Qu" + "".join(_SYLLABLES[k >> shift & 7] for shift in (9, 6, 3, 0))


def paper_id(k: int) -> str:
    return f"2609.{10000 + k:05d}"


def _paper_line(k: int, zh: bool) -> str:
    shared = f"，和 arXiv:{paper_id(k - 2)} 同一条线" if k % 3 == 2 else ""
    if zh:
        return (f"## {coined(k)}Serve：前缀感知的 KV cache 调度（arXiv:{paper_id(k)}）\n\n"
                f"- 在 H100 上 TTFT 降低 {10 + k % 70}%，decode 吞吐 {1 + k % 9 / 10:.1f}×{shared}。"
                + ("这组数字待核实：只有摘要。" if k % 2 == 0 else ""))
    shared = f", in the same line as arXiv:{paper_id(k - 2)}" if k % 3 == 2 else ""
    return (f"## {coined(k)}Serve: prefix-aware KV cache scheduling for vLLM (arXiv:{paper_id(k)})\n\n"
            f"- TTFT down {10 + k % 70}% on H100, decode throughput {1 + k % 9 / 10:.1f}×{shared}."
            + (" Needs verification: only the abstract says so." if k % 2 == 0 else ""))


def _extra(k: int, zh: bool, named: bool) -> str:
    """By turns: a hedged claim, its confirmation by the next note, an increment's release or its
    benchmark. `named`: the claim and its confirmation in an entry of their own, headed with the
    coined name (a subject with no arXiv id); else lines of the paper's entry."""
    name = coined(2048 + k // 4 * 4)  # the claim's and the increment's subject, shared by k..k+3
    turn = k % 4
    if turn in (0, 1) and not named:
        return (f"- {name} 路由器称 serving 吞吐 {2 + k % 7}.4×，只有厂商博客，待核实。" if zh else
                f"- {name} router claims {2 + k % 7}.4× serving throughput; needs verification, only the vendor's blog says so."
                ) if turn == 0 else (f"- {name} 的吞吐数字已核实：作者仓库的 benchmark 表与博客一致。" if zh else
                                     f"- {name}'s throughput is confirmed: the authors' repository table matches the blog.")
    if turn == 0:
        return (f"\n## {name} 路由器\n\n- {name} 路由器称 serving 吞吐 {2 + k % 7}.4×，只有厂商博客，待核实。" if zh else
                f"\n## {name} router\n\n- {name} router claims {2 + k % 7}.4× serving throughput; needs verification, "
                "only the vendor's blog says so.")
    if turn == 1:
        return (f"\n## {name} 跟进\n\n- {name} 的吞吐数字已核实：作者仓库的 benchmark 表与博客一致。" if zh else
                f"\n## {name} follow-up\n\n- {name}'s throughput is confirmed: the authors' repository table matches the blog.")
    if turn == 2:
        return f"\n## {name} 2.0 release\n\n{name} 2.0 is a new vLLM inference engine, 2.1× faster on H100. 建议进 E1"
    return f"\n## {name} 2.0 benchmark\n\n{name} 2.0 keeps p99 latency under 40 ms at 64 concurrent requests"


def note_text(k: int, named: bool = False) -> str:
    zh = k % 3 != 1  # two notes in three in Chinese, the English ones mix in Chinese lines anyway
    title = "推理筛选" if zh else "Inference reading"
    return f"# {title} {k}\n\n{_paper_line(k, zh)}\n{_extra(k, zh, named)}\n"


def note_path(k: int) -> str:
    author = AUTHORS[k % len(AUTHORS)]
    minute = k % 600  # 08:00 to 17:59, before the 18:00 cutoff
    return f"inbox/{author}/{DAY}-{8 + minute // 60:02d}{minute % 60:02d}-{author}-inference-{k:04d}.md"


PAST = DAY - dt.timedelta(days=2)  # in every window's lookback, in none of DAY's


def echo_text(k: int) -> str:
    """A published briefing dropped into the inbox (an echo), restating a hedged claim about a coined
    system: a restated claim is raised again only if no lookback note settled it (`past_text`)."""
    name = coined(3072 + k)
    return (f"inference · E1 pre-digest briefing ({DAY - dt.timedelta(days=1)})\n\n## 三、待核实\n\n"
            f"- ⚠️ 待核实 · {name} 路由器称 serving 吞吐 {2 + k % 7}.4×，只有厂商博客。\n")


def past_text(k: int) -> str:
    """A lookback note that says a thing is confirmed: every other one an echoed claim's thing."""
    name = coined(3072 + k) if k % 8 == 0 else coined(1024 + k)
    return f"# 推理跟进 {k}\n\n## {name} 跟进\n\n- {name} 的吞吐数字已核实：作者仓库的 benchmark 表与博客一致。\n"


def echo_count(n: int) -> int:
    """How many of `notes(n)`'s window sources are echoes."""
    return n // 4


def notes(n: int, named: bool = False) -> dict[str, str]:
    """The window's n notes, path -> text; `named`: the hedged claims about subjects with no arXiv id.
    Besides them, every fourth k adds an echo to the window (`echo_text`), and every other k a
    lookback note on PAST (`past_text`), so that what echoes restate is met with what the lookback
    settled."""
    out = {note_path(k): note_text(k, named) for k in range(1, n + 1)}
    out.update({f"inbox/tom/{DAY}-1730-tom-e1-inference-{k:04d}.md": echo_text(k) for k in range(4, n + 1, 4)})
    out.update({f"inbox/kai/{PAST}-1000-kai-inference-{k:04d}.md": past_text(k) for k in range(2, n + 1, 2)})
    return out
