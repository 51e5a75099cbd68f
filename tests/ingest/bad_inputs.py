"""A corpus of hostile workspace files, written into a workspace for one evening (2026-10-09)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DAY = "2026-10-09"
NOTE = "# Note\n\n## 1. KV cache eviction for vLLM serving (arXiv:2609.31111)\n\n- throughput 1.8× on H100\n"


@dataclass(frozen=True)
class Case:
    name: str
    path: str  # workspace-relative
    data: bytes | None  # None: created by `make` instead
    readable: bool | None  # parsed (True), recorded with an error (False), either is fine (None)
    expect_text: str | None = None  # some text that must be in its items when readable


def _big_note() -> bytes:
    """About 20 MB in 2,000 long entries, like a pasted dump of articles."""
    filler = "长文本 long body text about serving systems. " * 220
    parts = [f"## {i}. Entry {i} on vLLM serving (arXiv:2609.3{i:04d})\n\n- 2.{i % 10}× faster\n\n{filler}\n\n"
             for i in range(2000)]
    return "".join(parts).encode()


CASES: list[Case] = [
    Case("utf8 bom", f"inbox/amy/{DAY}-0901-amy-bom.md", b"\xef\xbb\xbf" + NOTE.encode(), True, "KV cache eviction"),
    Case("utf16 le bom", f"inbox/amy/{DAY}-0902-amy-utf16le.md", NOTE.encode("utf-16"), True, "KV cache eviction"),
    Case("utf16 be bom", f"inbox/amy/{DAY}-0903-amy-utf16be.md", b"\xfe\xff" + NOTE.encode("utf-16-be"), True, "KV cache"),
    Case("gb18030", f"inbox/amy/{DAY}-0904-amy-gb.md", "# 笔记\n\n## 1. 推理服务（arXiv:2609.32222）\n\n- 吞吐提升\n".encode("gb18030"), True, "推理服务"),
    Case("crlf", f"inbox/amy/{DAY}-0905-amy-crlf.md", NOTE.replace("\n", "\r\n").encode(), True, "KV cache eviction"),
    Case("cr only", f"inbox/amy/{DAY}-0906-amy-cr.md", NOTE.replace("\n", "\r").encode(), True, "KV cache eviction"),
    Case("binary with nul", f"inbox/amy/{DAY}-0907-amy-binary.md", bytes(range(256)) * 8, False),
    Case("empty", f"inbox/amy/{DAY}-0908-amy-empty.md", b"", False),
    Case("whitespace only", f"inbox/amy/{DAY}-0909-amy-blank.md", b"   \n\n\t\n", True),
    Case("truncated utf8", f"inbox/amy/{DAY}-0910-amy-trunc.md", "# 推理\n\n## 1. 截断的条目".encode()[:-2], None),
    Case("name with spaces", f"inbox/amy/{DAY}-0911-amy-name with spaces.md", NOTE.encode(), True, "KV cache"),
    Case("non-ascii name", f"inbox/amy/{DAY}-0912-amy-推理笔记.md", NOTE.encode(), True, "KV cache"),
    Case("20 MB note", f"inbox/amy/{DAY}-0913-amy-huge.md", _big_note(), True, "Entry 1"),
    Case("malformed ids", f"inbox/amy/{DAY}-0914-amy-malformed.md",
         b"## 1. vLLM bug\n\n- arXiv:2613.01234 and arXiv:1501.1234 and arXiv:160622148\n", True, "vLLM bug"),
    Case("old-style and url ids", f"inbox/amy/{DAY}-0915-amy-oldstyle.md",
         b"- quant-ph/0201082v1 serving\n- https://arxiv.org/abs/2609.33333v3 vLLM\n", True, "serving"),
    Case("unclosed code fence", f"inbox/amy/{DAY}-0916-amy-fence.md", b"## 1. vLLM\n\n```python\nprint(1)\n## not a heading\n", True, "vLLM"),
    Case("html and script", f"inbox/amy/{DAY}-0917-amy-html.md",
         b"## 1. <script>alert(1)</script> vLLM serving\n\n<img src=x onerror=alert(1)>\n", True, "vLLM serving"),
    Case("one long line", f"inbox/amy/{DAY}-0918-amy-longline.md", b"vLLM " * 200_000, True, "vLLM"),
    Case("nul in text", f"inbox/amy/{DAY}-0919-amy-nul.md", b"## 1. vLLM\n\x00\x00 hidden\n", False),
    Case("latin-1 bytes", f"inbox/amy/{DAY}-0920-amy-latin1.md", "## 1. café serving naïve\n".encode("latin-1"), None),
    Case("invalid date in name", "inbox/amy/2026-13-45-amy-baddate.md", NOTE.encode(), True, "KV cache"),
    Case("no date in name", "inbox/amy/amy-undated.md", NOTE.encode(), True, "KV cache"),
    Case("stray binary", "inbox/amy/photo.png", b"\x89PNG\r\n\x1a\n" + bytes(64), False),
    Case("file directly in inbox", "inbox/loose-note.md", NOTE.encode(), False),
    Case("card without front matter", "organized/paper_cards/9001-broken.md", b"just prose, no id, no front matter\n", False),
    Case("card with broken yaml", "organized/paper_cards/9002-2609-34444.md",
         b"---\narxiv: [unclosed\ntitle: \"half\nprimary: inference\n---\nTL;DR vLLM\n", None),
    Case("symlink outside", f"inbox/amy/{DAY}-0921-amy-link.md", None, False),
    Case("fifo", f"inbox/amy/{DAY}-0922-amy-fifo.md", None, False),
    Case("directory named like a note", f"inbox/amy/{DAY}-0923-amy-dir.md/inner.txt", None, True, "inside"),
    Case("many headings", f"inbox/amy/{DAY}-0924-amy-headings.md",
         "".join(f"### {i}. vLLM item {i}\n" for i in range(5000)).encode(), True, "vLLM item 4999"),
]


def write_cases(workspace: Path, outside: Path) -> list[Case]:
    """Write every case into `workspace`; dateless files get an mtime inside the 2026-10-09 window."""
    window_mtime = 1791507600.0  # 2026-10-09 12:00 Asia/Shanghai
    for case in CASES:
        target = workspace / case.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if case.name == "symlink outside":
            secret = outside / "secret.md"
            secret.write_text("## 1. SECRET-OUTSIDE vLLM\n", encoding="utf-8")
            target.symlink_to(secret)
        elif case.name == "fifo":
            os.mkfifo(target)
        elif case.name == "directory named like a note":
            target.write_text("inside a directory, vLLM", encoding="utf-8")
            os.utime(target, (window_mtime, window_mtime))
        else:
            assert case.data is not None
            target.write_bytes(case.data)
            os.utime(target, (window_mtime, window_mtime))
    return CASES
