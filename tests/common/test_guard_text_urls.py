"""Contract of the shared safety mechanisms: `guarded` turns any Exception (not BaseException) into a
Failure naming the input and `Type: message`; `clean_text`/`display_name` leave no NUL, lone
surrogate or control character; `safe_url` accepts only absolute http(s) URLs (mailto where asked),
however the scheme is disguised, and nothing with whitespace or controls inside; `defang_markdown`
leaves no dangerous link and points id links at arXiv."""

from __future__ import annotations

import pytest

from tasks.common.guard import guarded
from tasks.common.limits import count_or_none
from tasks.common.text import clean_text, display_name, has_bad_chars
from tasks.common.urls import MAIL_SCHEMES, arxiv_abs_url, defang_markdown, safe_url


def test_guarded_records_any_exception_and_passes_values() -> None:
    assert guarded("x", lambda: 3).value == 3
    failed = guarded("f.md", lambda: {}["k"])
    assert failed.value is None and failed.failure is not None
    assert (failed.failure.label, failed.failure.error) == ("f.md", "KeyError: 'k'")
    with pytest.raises(KeyboardInterrupt):
        guarded("x", lambda: (_ for _ in ()).throw(KeyboardInterrupt()))


def test_error_messages_are_clean_and_bounded() -> None:
    failure = guarded("x", lambda: (_ for _ in ()).throw(ValueError("a\x00b\udc80" + "z" * 2000))).failure
    assert failure is not None and not has_bad_chars(failure.error) and len(failure.error) < 600


def test_names_and_text_are_made_safe() -> None:
    assert display_name("a\udcffb") == "a\\xffb"
    assert display_name("new\nline\u2028x") == "new\\nline\\u2028x"
    assert clean_text("a\x00b\ud800c") == "ab\ufffdc"
    assert display_name("推理笔记.md") == "推理笔记.md"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "&#106;avascript:alert(1)",
                                 "&#x6A;avascript:x", "java\tscript:x", " javascript:x", "vbscript:x",
                                 "data:text/html,<script>", "DATA:x", "/relative", "//host/x", "ftp://x/y",
                                 "https:///nohost", "https://a.org/x y", "https://a.org/\u202ex", "https://a.org/\x85x",
                                 "https://a.org/&#x202e;x", "mailto:a@b.org", "", None])
def test_unsafe_urls_are_refused(url: str | None) -> None:
    assert safe_url(url) is None


def test_http_urls_are_kept() -> None:
    assert safe_url("https://arxiv.org/abs/2610.04646") == "https://arxiv.org/abs/2610.04646"
    assert safe_url("http://example.com/a?b=c") == "http://example.com/a?b=c"
    assert safe_url("  https://e.org/  ") == "https://e.org/"


def test_mailto_only_where_the_caller_allows_it() -> None:
    assert safe_url("mailto:team@example.org", MAIL_SCHEMES) == "mailto:team@example.org"
    assert safe_url("mailto:", MAIL_SCHEMES) is None
    assert safe_url("javascript:x", MAIL_SCHEMES) is None


def test_markdown_keeps_no_dangerous_link() -> None:
    out = defang_markdown("[a](javascript:x) ![i](data:image/png,AA) [2610.04646](javascript:y) "
                          "<javascript:z> <script>q</script> [ok](https://e.com/) &#106;avascript:w\n"
                          "[ref]: javascript:r")
    assert "](javascript" not in out.lower() and "<script" not in out and "](data:" not in out
    assert f"[2610.04646]({arxiv_abs_url('2610.04646')})" in out
    assert "[ok](https://e.com/)" in out and "&amp;#106;" in out
    assert "[ref]: #" in out


def test_counts_outside_their_column_are_dropped_with_a_warning() -> None:
    warnings: list[str] = []
    assert [count_or_none(v, "n", warnings) for v in (5, -1, 2**63, True, "7")] == [5, None, None, None, None]
    assert len(warnings) == 4
