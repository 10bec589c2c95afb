"""A scratch root other users can reach: where a test puts what a throw-away user (or `nobody`) must open.

pytest's own `tmp_path` lies under `tempfile.gettempdir()`, which is its owner's only wherever `/tmp` or
`$TMPDIR` is mode 0700, and the checkout may lie under `/root` or in a `mktemp -d` clone.  So nothing here
assumes a folder is open to others: a parent is chosen by checking every folder from `/` down to it, and a
test that finds none fails under CI=true (a skip there would prove nothing) and skips, saying why, elsewhere.

* `blocked_ancestor(path)`: the first folder on the way to `path` that others may not search (None: none).
* `scratch_root(prefix, mode)`: a context manager; a new folder of `mode` in the first candidate parent whose
  whole chain others may search, removed afterwards (only that folder, never through a symlink).
* `readable_copy(source, target)`: `source` copied so that every user may read it (hard links where the file
  already is readable by others), for code a foreign uid must run that lies where it cannot reach.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

# Tried in order: the configured temp dir first (where pytest's own folders are), then the usual shared ones.
DEFAULT_PARENTS = ("/var/tmp", "/dev/shm", "/run/shm")


def in_ci() -> bool:
    """Whether this run is CI's (CI=true), where a skip would be green while proving nothing."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def blocked_ancestor(path: Path) -> Path | None:
    """The first folder from `/` down to `path` (itself included when it is a folder; symlinks resolved as the
    kernel follows them) that a user outside its owner and group may not search; None when every one lets them
    through.  A folder that cannot be examined counts as blocked."""
    resolved = Path(path).resolve()
    for folder in [*reversed(resolved.parents), *([resolved] if resolved.is_dir() else [])]:
        try:
            if not os.stat(folder).st_mode & stat.S_IXOTH:
                return folder
        except OSError:
            return folder
    return None


def traversable_by_others(path: Path) -> bool:
    """Whether every folder from `/` down to `path` lets any user pass through."""
    return blocked_ancestor(path) is None


def candidate_parents() -> list[Path]:
    """Where a scratch root may go, in order of preference: the configured temp dir, then the shared ones."""
    return [Path(tempfile.gettempdir()), *(Path(p) for p in DEFAULT_PARENTS)]


def open_parent(candidates: Sequence[Path]) -> tuple[Path | None, list[str]]:
    """The first of `candidates` that exists, that we may write in and whose whole chain others may search;
    with one line per candidate refused, saying why (for the message when none is left)."""
    refused = []
    for parent in candidates:
        if not parent.is_dir():
            refused.append(f"{parent}: not a folder")
        elif not os.access(parent, os.W_OK | os.X_OK):
            refused.append(f"{parent}: not writable by us")
        elif (blocked := blocked_ancestor(parent)) is not None:
            refused.append(f"{parent}: others may not pass through {blocked}")
        else:
            return parent, refused
    return None, refused


@contextlib.contextmanager
def scratch_root(prefix: str = "hw-scratch-", mode: int = 0o755,
                 candidates: Sequence[Path] | None = None) -> Iterator[Path]:
    """A new folder of `mode` that every user can reach (see `open_parent`), removed on exit with all it holds.

    No parent fits: the test fails under CI=true and skips elsewhere, naming every candidate and why.  Removal
    takes only the folder made here: if the name was replaced meanwhile (by a symlink, or another folder) it is
    left alone, and nothing below it is followed through a symlink (shutil.rmtree's fd-based walk)."""
    parent, refused = open_parent(candidate_parents() if candidates is None else candidates)
    if parent is None:
        said = "no folder here lets every user pass through it: " + "; ".join(refused)
        if in_ci():
            pytest.fail(said, pytrace=False)
        pytest.skip(said)
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    folder.chmod(mode)
    made = os.lstat(folder)
    try:
        yield folder
    finally:
        remove_made(folder, (made.st_dev, made.st_ino))


def remove_made(folder: Path, identity: tuple[int, int]) -> None:
    """Remove `folder` and all it holds if it still is the very folder (device, inode) made; else leave it."""
    if not shutil.rmtree.avoids_symlink_attacks:  # a walk by path could be led out of the folder
        raise RuntimeError(f"{folder}: this platform's rmtree may follow symlinks; left in place")
    try:
        now = os.lstat(folder)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(now.st_mode) or (now.st_dev, now.st_ino) != identity:
        return
    shutil.rmtree(folder)


def readable_copy(source: Path, target: Path, ignore=None) -> Path:
    """`source` (a folder) copied to `target` (which must not exist) so that every user may read it and pass
    through its folders: a file others may already read is hard-linked when it can be (cheap, and its mode is
    kept, so the original is never changed), any other file copied and made 0644 (0755 if executable).
    Symlinks are kept as symlinks."""
    def place(src: str, dst: str) -> str:
        mode = os.stat(src).st_mode
        if mode & stat.S_IROTH:
            with contextlib.suppress(OSError):
                os.link(src, dst)
                return dst
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755 if mode & stat.S_IXUSR else 0o644)
        return dst

    shutil.copytree(source, target, symlinks=True, ignore=ignore, copy_function=place)
    for folder in [target, *(p for p in target.rglob("*") if p.is_dir() and not p.is_symlink())]:
        folder.chmod(0o755)
    return target
