"""Walk an evidence directory so that nothing in it is dropped without a word.

Every entry is either yielded as a regular file to read, skipped by a documented rule (hidden names,
i.e. starting with "."; the source's `ignore` globs), or turned into a Problem: a directory or file that
cannot be listed or read, a dangling symbolic link, a FIFO, socket or device, a symbolic link loop. The
walk never opens a file (a FIFO would block); the caller reads what it is given.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from auditor.normalize import Problem

log = logging.getLogger(__name__)
CHECK_PERMISSIONS = "check the path and its permissions (the auditor only reads)"


@dataclass(frozen=True)
class Found:
    path: Path
    size: int


def walk(root: Path, rel: Callable[[Path], str], ignore: list[str]) -> Iterator[Found | Problem]:
    """Regular files under `root` (or `root` itself), in name order, and a Problem for each entry that
    cannot be read as one. `rel` names a path in problems; `ignore` globs match paths relative to root."""
    try:
        st = root.stat()
    except OSError as exc:
        yield Problem(rel(root), f"cannot read: {exc.strerror or exc}", hint=CHECK_PERMISSIONS)
        return
    if stat.S_ISREG(st.st_mode):
        yield Found(root, st.st_size)
        return
    yield from _directory(root, root, rel, ignore, {(st.st_dev, st.st_ino)})


def _directory(
    root: Path, directory: Path, rel: Callable[[Path], str], ignore: list[str], seen: set[tuple[int, int]]
) -> Iterator[Found | Problem]:
    try:
        with os.scandir(directory) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        yield Problem(rel(directory), f"cannot list directory: {exc.strerror or exc}", hint=CHECK_PERMISSIONS)
        return
    for entry in entries:
        path = Path(entry.path)
        inside = path.relative_to(root).as_posix()
        if entry.name.startswith("."):
            log.info("skipped hidden evidence entry %s", rel(path))
            continue
        if any(fnmatch.fnmatchcase(inside, g) or fnmatch.fnmatchcase(entry.name, g) for g in ignore):
            log.info("skipped %s (sources.files ignore)", rel(path))
            continue
        try:
            st = path.stat()  # follows symbolic links
        except FileNotFoundError:
            yield Problem(
                rel(path), "dangling symbolic link: its target does not exist", hint=CHECK_PERMISSIONS
            )
            continue
        except OSError as exc:
            yield Problem(rel(path), f"cannot read: {exc.strerror or exc}", hint=CHECK_PERMISSIONS)
            continue
        if stat.S_ISDIR(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key in seen:
                yield Problem(rel(path), "symbolic link loop: this directory is already being read")
                continue
            yield from _directory(root, path, rel, ignore, seen | {key})
        elif stat.S_ISREG(st.st_mode):
            yield Found(path, st.st_size)
        else:
            kind = _special(st.st_mode)
            yield Problem(
                rel(path), f"not a regular file ({kind}): not read", hint="remove it from the evidence"
            )


def _special(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file or directory"
