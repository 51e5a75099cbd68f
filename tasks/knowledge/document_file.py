"""The knowledge document as the file the noon merge reads and rewrites.

It is read through the decoder ingest reads every workspace file with (`tasks.common.decode`), so a
document ingest can read (GB18030, UTF-16 with a BOM, …) is one the merge can read, and with every
character kept (BOM, line endings), so that the merge changes only the lines it means to. It is
written back in the encoding it was read in, whole (a temp file beside it, then a rename); a merged
text that encoding cannot hold is refused with one line and the file is left as it is.
"""

from __future__ import annotations

from pathlib import Path

from tasks.common.decode import Decoded, decode_exact, encode_exact
from tasks.common.files import write_atomically


def read_knowledge(path: Path) -> Decoded:
    """The document's text and encoding; OSError when it cannot be read or is a symlink, ValueError
    (`UndecodableError`) when its bytes are no text that could be written back unchanged."""
    if path.is_symlink():
        raise OSError(f"{path} is a symlink; predigest neither follows nor rewrites it")
    return decode_exact(path.read_bytes())


def write_knowledge(path: Path, text: str, encoding: str) -> None:
    """Replace the document with `text` in `encoding`; ValueError (`UnencodableError`), before
    anything is written, when the encoding cannot hold the text."""
    write_atomically(path, encode_exact(text, encoding))
