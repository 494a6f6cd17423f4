"""Which git commit a declared-policy checkout is at, read from `.git` files (no git binary needed).

The commit is recorded with the evidence so an auditor knows exactly which reviewed revision the live
policies were compared with. Plain files, worktrees (`.git` file with `gitdir:`) and packed refs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass(frozen=True)
class GitRef:
    commit: str
    branch: str | None
    root: Path

    def text(self) -> str:
        on = f" on {self.branch}" if self.branch else " (detached)"
        return f"git commit {self.commit[:12]}{on}"


def _git_dir(start: Path) -> Path | None:
    for folder in [start, *start.parents]:
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            text = dot.read_text(encoding="utf-8", errors="replace").strip()
            if text.startswith("gitdir:"):
                target = Path(text.split(":", 1)[1].strip())
                return target if target.is_absolute() else (folder / target).resolve()
    return None


def _common_dir(git_dir: Path) -> Path:
    common = git_dir / "commondir"
    if common.is_file():
        return (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
    return git_dir


def _resolve(git_dir: Path, ref: str) -> str | None:
    for base in (git_dir, _common_dir(git_dir)):
        loose = base / ref
        if loose.is_file():
            value = loose.read_text(encoding="utf-8", errors="replace").strip()
            return value if _SHA.match(value) else None
        packed = base / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8", errors="replace").splitlines():
                parts = line.split(" ", 1)
                if len(parts) == 2 and parts[1].strip() == ref and _SHA.match(parts[0]):
                    return parts[0]
    return None


def git_ref(path: Path) -> GitRef | None:
    """The commit checked out at `path`, or None when it is not inside a git checkout (or unreadable)."""
    try:
        start = path if path.is_dir() else path.parent
        git_dir = _git_dir(start.resolve())
        if git_dir is None:
            return None
        head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        if head.startswith("ref:"):
            ref = head.split(":", 1)[1].strip()
            commit = _resolve(git_dir, ref)
            branch = ref.removeprefix("refs/heads/")
        else:
            commit, branch = (head if _SHA.match(head) else None), None
        return GitRef(commit, branch, git_dir.parent) if commit else None
    except OSError:
        return None
