"""Gzip evidence: intact streams pass (multi-member too); truncation, corruption, trailing bytes and a
stream that inflates past the cap are each named, in bounded memory."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from collectors.offline.gz import GzipDamaged, gzip_damage, read_head

TEXT = (
    b"2 111122223333 eni-1 10.20.1.5 10.250.10.21 40000 623 17 2 200 1764583200 1764583260 ACCEPT OK\n" * 5000
)


def test_intact_single_and_multi_member_streams_pass() -> None:
    one = gzip.compress(TEXT)
    assert gzip_damage(one, 10**9) is None
    assert gzip_damage(one + gzip.compress(b"more\n"), 10**9) is None  # `cat a.gz b.gz` is valid gzip
    assert gzip_damage(one + b"\x00" * 512, 10**9) is None  # zero padding after the last member


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda b: b[: len(b) // 2], "truncated or corrupt"),
        (lambda b: b[:-4], "truncated or corrupt"),  # the trailer (length) is missing
        (lambda b: b + b"garbage", "are not gzip"),
        (lambda b: b[:10] + b"\xff" * 40 + b[50:], "corrupt"),
    ],
)
def test_damaged_streams_are_named(damage: object, words: str) -> None:
    found = gzip_damage(damage(gzip.compress(TEXT)), 10**9)  # type: ignore[operator]
    assert found is not None and words in found


def test_a_gzip_bomb_stops_at_the_cap() -> None:
    bomb = gzip.compress(b"\0" * (64 << 20), compresslevel=9)  # 64 MiB from ~64 KiB
    assert len(bomb) < 1 << 20
    found = gzip_damage(bomb, 1 << 20)
    assert found is not None and "more than 1048576 bytes" in found


def test_read_head_inflates_the_start_or_names_a_damaged_start(tmp_path: Path) -> None:
    ok = tmp_path / "a.log.gz"
    ok.write_bytes(gzip.compress(TEXT))
    assert read_head(ok, 100) == TEXT[:100]
    bad = tmp_path / "b.log.gz"
    bad.write_bytes(gzip.compress(TEXT)[:12])
    with pytest.raises(GzipDamaged):
        read_head(bad, 100)
    plain = tmp_path / "c.log"
    plain.write_bytes(TEXT)
    assert read_head(plain, 10) == TEXT[:10]
