"""Gzip evidence files: their first bytes for classification, and whether the whole stream is intact.

Both stream (a bounded buffer whatever the file's size) and both turn a truncated or corrupt stream into
a message for a Problem instead of an empty or partial read that nobody hears about.
"""

from __future__ import annotations

import zlib
from pathlib import Path

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 1 << 20


class GzipDamaged(ValueError):
    """The gzip stream cannot be read (the message says where)."""


def read_head(path: Path, size: int) -> bytes:
    """Up to `size` bytes of the file, decompressed when it is gzip. Raises OSError or GzipDamaged."""
    with path.open("rb") as fh:
        head = fh.read(size)
        if not head.startswith(GZIP_MAGIC):
            return head
        fh.seek(0)
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = b""
        while len(out) < size:
            chunk = fh.read(_CHUNK)
            if not chunk:
                if not out and not inflater.eof:
                    raise GzipDamaged("gzip stream is truncated before any content")
                break
            try:
                out += inflater.decompress(chunk, size - len(out))
            except zlib.error as exc:
                raise GzipDamaged(f"gzip stream is corrupt at its start ({exc})") from exc
            if inflater.eof:
                break
        return out[:size]


def gzip_damage(content: bytes, limit: int) -> str | None:
    """None when every gzip member of `content` inflates to its end and the whole is at most `limit`
    bytes; else what is wrong (truncated, corrupt, trailing bytes, too large). Output is counted and
    dropped chunk by chunk, so a gzip bomb costs time bounded by `limit`, not memory."""
    view = memoryview(content)
    pos, total, members = 0, 0, 0
    while pos < len(view):
        if bytes(view[pos : pos + 2]) != GZIP_MAGIC:
            if members and not bytes(view[pos:]).strip(b"\x00"):
                return None  # zero padding after the last member
            return f"bytes after gzip member {members} (offset {pos}) are not gzip"
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        read = pos
        while not inflater.eof:
            if inflater.unconsumed_tail:
                chunk = inflater.unconsumed_tail
            elif read < len(view):
                chunk = bytes(view[read : read + _CHUNK])
                read += len(chunk)
            else:
                where = f"member {members + 1}, after {total} decompressed bytes"
                return f"gzip stream is truncated or corrupt ({where})"
            try:
                total += len(inflater.decompress(chunk, _CHUNK))
            except zlib.error as exc:
                return (
                    f"gzip stream is corrupt (member {members + 1}, after {total} decompressed bytes: {exc})"
                )
            if total > limit:
                return f"decompresses to more than {limit} bytes (collection.max_file_bytes)"
        members += 1
        pos = read - len(inflater.unused_data)
    return None
