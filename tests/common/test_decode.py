"""Contract of tasks.common.decode.decode_bytes.

Every text file of the sample workspace decodes (UTF-8, or GB18030 for the Notepad-saved note) to
LF-only text; BOMs (UTF-8/16/32) and BOM-less UTF-16 are recognised and the BOM dropped; the reported
encoding is a Python codec that decodes the original bytes; binary data raises UndecodableError,
an empty file raises EmptySourceError, both ValueErrors with a message saying why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tasks.common.decode import (
    Decoded,
    EmptySourceError,
    UndecodableError,
    decode_bytes,
    decode_exact,
    encode_exact,
)

ROOT = Path(__file__).resolve().parents[2]
GB_NOTE = "inbox/jay/2026-10-07-0820-jay-csdn-inference-rag-highvalue-oct.md"
EMPTY_NOTE = "inbox/tom/2026-10-07-0900-hf-daily-2026-10-07.md"


def workspace() -> Path:
    """The sample workspace: the repo's examples copy, else ../shared/corpus/workspace."""
    for candidate in (ROOT / "examples" / "workspace", ROOT.parent / "shared" / "corpus" / "workspace"):
        if (candidate / "inbox").is_dir():
            return candidate
    pytest.skip("sample workspace not found")


def test_gb18030_crlf_note_decodes_to_lf_chinese_text() -> None:
    data = (workspace() / GB_NOTE).read_bytes()
    assert b"\r\n" in data
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # the point of the sample: it really is not UTF-8
    decoded = decode_bytes(data)
    assert decoded.encoding == "gb18030"
    assert "\r" not in decoded.text
    assert decoded.text.startswith("# CSDN 高价值筛选 · inference + RAG · 2026-10-07 R1（08:20）\n")
    assert "## 条目#1 · 腾讯云：vLLM + SGLang 高并发 Serving 实践（收藏 1.2k）" in decoded.text
    assert "arXiv:2610.04980" in decoded.text


def test_every_other_sample_note_is_utf8() -> None:
    notes = [p for p in (workspace() / "inbox").rglob("*.md") if p.stat().st_size > 0]
    assert len(notes) >= 20
    for path in notes:
        if path.as_posix().endswith(GB_NOTE):
            continue
        decoded = decode_bytes(path.read_bytes())
        assert decoded.encoding == "utf-8", path
        assert decoded.text == path.read_text(encoding="utf-8"), path


def test_ds_store_is_binary() -> None:
    with pytest.raises(UndecodableError, match="binary"):
        decode_bytes((workspace() / "inbox/jay/.DS_Store").read_bytes())


def test_empty_file_raises_empty_source_error() -> None:
    data = (workspace() / EMPTY_NOTE).read_bytes()
    assert data == b""
    with pytest.raises(EmptySourceError, match=r"empty file \(0 bytes\)"):
        decode_bytes(data)
    assert issubclass(EmptySourceError, ValueError) and issubclass(UndecodableError, ValueError)


SAMPLE = "# 笔记 Note\r\n- SEIS 2.81–3.10× arXiv:2610.04646\r\n- 待核实\rlast line\n"
EXPECTED = "# 笔记 Note\n- SEIS 2.81–3.10× arXiv:2610.04646\n- 待核实\nlast line\n"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (SAMPLE.encode("utf-8"), "utf-8"),
        (SAMPLE.encode("utf-8-sig"), "utf-8-sig"),
        (SAMPLE.encode("utf-16"), "utf-16"),  # with BOM, native order
        (b"\xfe\xff" + SAMPLE.encode("utf-16-be"), "utf-16"),
        (b"\xff\xfe" + SAMPLE.encode("utf-16-le"), "utf-16"),
        (SAMPLE.encode("utf-16-le"), "utf-16-le"),  # no BOM: recognised by where the NULs are
        (SAMPLE.encode("utf-16-be"), "utf-16-be"),
        (SAMPLE.encode("utf-32"), "utf-32"),
        (SAMPLE.encode("gb18030"), "gb18030"),
    ],
)
def test_encodings_and_line_endings(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded == Decoded(EXPECTED, encoding)
    # The reported name is a real codec for the original bytes (BOM handling included).
    assert data.decode(encoding).lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n") == EXPECTED


def test_bom_only_file_is_empty_text_not_an_error() -> None:
    assert decode_bytes(b"\xef\xbb\xbf") == Decoded("", "utf-8-sig")


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4,  # NULs in no UTF-16 pattern
        bytes(range(1, 32)) * 40,  # no NUL, but nothing but control characters
        b"\x00" * 64,
    ],
)
def test_binary_data_is_rejected(data: bytes) -> None:
    with pytest.raises(UndecodableError, match="binary"):
        decode_bytes(data)


def test_text_in_a_legacy_encoding_is_decoded_with_a_warning_naming_it() -> None:
    decoded = decode_bytes(b"plain start \xff\xfe\xff then junk")
    assert decoded.text == "plain start ÿþÿ then junk" and decoded.warnings and "cp1252" in decoded.warnings[0]


def test_bytes_that_fit_no_encoding_as_text_are_binary() -> None:
    with pytest.raises(UndecodableError, match="binary data"):
        decode_bytes(bytes(range(1, 9)) * 20 + b"\xff")


def test_truncated_utf16_with_bom_is_decoded_with_a_warning() -> None:
    decoded = decode_bytes(b"\xff\xfeA\x00B\x00C")
    assert decoded.text.startswith("AB") and decoded.warnings and "lossy" in decoded.warnings[0]


def test_a_few_stray_control_characters_are_tolerated() -> None:
    text = "normal note text with one escape \x1b here\n" * 10
    assert decode_bytes(text.encode()).text == text


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32", "gb18030"])
def test_decode_exact_gives_back_every_byte(encoding: str) -> None:
    text = "# 推理 · inference\r\n\r\n- vLLM 吞吐 2×\r\n\u2028tail\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = "\ufeff".encode("utf-16-be") + data  # a big-endian BOM stays big-endian
    found = decode_exact(data)
    assert encode_exact(found.text, found.encoding) == data
    assert found.text.lstrip("\ufeff") == text  # line endings as they are, a BOM as U+FEFF


def test_decode_exact_refuses_what_only_a_lossy_decoding_reads() -> None:
    data = "# 推理服务截断\n\n- 末尾".encode()[:-1]
    assert decode_bytes(data).warnings  # ingest reads it, with a warning
    with pytest.raises(UndecodableError, match="lossy"):
        decode_exact(data)
