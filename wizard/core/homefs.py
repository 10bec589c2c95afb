"""homefs: "a file inside a Hermes home", opened so that the home's owner cannot redirect it.

hermes-wizard runs as root on homes owned by someone else, so nothing in a home is
trusted: any name may be a symlink, a FIFO, a device, a directory or a huge file, and
may be swapped for another between two system calls.  The rules kept here:

* The home directory is opened once (`O_DIRECTORY|O_NOFOLLOW` on its last component);
  every later open, create, rename, unlink, chmod and chown is relative to that
  descriptor (`dir_fd`) with `O_NOFOLLOW`, and modes change through an open fd — a link
  swapped in makes the call fail, it never redirects it.
* Files are read non-blocking, only when `fstat` says regular, and at most
  `MAX_FILE_BYTES` (a FIFO, `/dev/zero`, a directory or a link loop is refused in words).
* A symlinked `.env`/`config.yaml` is written through only when the link, its target
  and the target's directory have one owner; in a foreign home (one the running user
  does not own) that owner must be the home's owner.  The target's directory is reached
  by opening every component of the resolved path without following links.
* In a foreign home a file not owned by the home's owner is never copied or changed
  (it could be a hard link to a root-only file).
* What the tool creates in a home (lock, backups, new files) is given to the home's
  owner (`give`), so the owner can still run `doctor` and `undo` after root did.
Refusals raise `ApplyError` with a message that says what to do; nothing was written.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.homeroot import open_home

if TYPE_CHECKING:
    from collections.abc import Iterable

MAX_FILE_BYTES = 64 * 1024 * 1024  # the largest config.yaml check parses (yamlfile.MAX_YAML_BYTES)
_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW


class ApplyError(Exception):
    """Nothing (or nothing lasting) was written; the message says what to do."""


class DanglingLink(ApplyError):
    """A symlinked file whose target does not exist (Hermes ignores it; readers see no file)."""


class At:
    """One name inside an open directory: what every FileOps call is about."""

    __slots__ = ("dir_fd", "name", "path")

    def __init__(self, dir_fd: int, name: str, path: Path) -> None:
        self.dir_fd, self.name, self.path = dir_fd, name, path

    def __repr__(self) -> str:
        return f"At({str(self.path)!r})"


def _kind(mode: int) -> str:
    return ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file")


class HomeDir:
    """An open home directory; `close()` (or `with`) releases every descriptor it opened."""

    def __init__(self, path: Path, create: bool = False) -> None:
        self.path = Path(path)
        if create:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)  # first run: created on confirmation
        self._fds: list[int] = []
        try:
            self.fd = self._keep(open_home(self.path))  # a profile: through its root, never through a link
        except OSError as exc:
            raise ApplyError(f"cannot open the home {self.path}: {exc.strerror or exc}; nothing was written") from None
        st = os.fstat(self.fd)
        self.uid, self.gid = st.st_uid, st.st_gid
        self.foreign = self.uid != os.geteuid()

    def _keep(self, fd: int) -> int:
        self._fds.append(fd)
        return fd

    def close(self) -> None:
        while self._fds:
            os.close(self._fds.pop())

    def __enter__(self) -> HomeDir:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def at(self, name: str) -> At:
        return At(self.fd, name, self.path / name)

    def give(self, fd: int) -> None:
        """Hand something the tool created to the home's owner (root only; others cannot)."""
        if os.geteuid() == 0:
            st = os.fstat(fd)
            if (st.st_uid, st.st_gid) != (self.uid, self.gid):
                os.fchown(fd, self.uid, self.gid)

    def subdir(self, parent: At, mode: int = 0o700) -> At:
        """Open (creating if needed) directory `parent.name`, ours to write in: a real directory,
        given to the home's owner, `mode` exactly.  Returns an At for its entries."""
        try:
            os.mkdir(parent.name, mode, dir_fd=parent.dir_fd)
        except FileExistsError:
            pass
        try:
            fd = self._keep(os.open(parent.name, _DIR, dir_fd=parent.dir_fd))
        except OSError as exc:
            raise ApplyError(f"{parent.path} is not a directory hermes-wizard can use "
                             f"({'a symbolic link' if exc.errno in (errno.ELOOP, errno.ENOTDIR) else exc.strerror}); "
                             "remove it and run again; nothing was written") from None
        st = os.fstat(fd)
        if st.st_uid not in (self.uid, os.geteuid()):
            raise ApplyError(f"{parent.path} belongs to uid {st.st_uid}, neither the home's owner nor you; "
                             "remove it and run again; nothing was written")
        self.give(fd)
        os.fchmod(fd, mode)
        return At(fd, "", parent.path)

    def opendir(self, parent: At) -> At | None:
        """An existing directory, opened without following links; None if absent or not one."""
        try:
            return At(self._keep(os.open(parent.name, _DIR, dir_fd=parent.dir_fd)), "", parent.path)
        except OSError:
            return None

    def place(self, name: str) -> At:
        """Where writing `name` lands, checked: the name itself (absent or a regular file), or the
        target of a symlink whose link, target and directory share one owner (see the module doc)."""
        at = self.at(name)
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return at
        if stat.S_ISLNK(st.st_mode):
            at, st = self._through_link(at, st.st_uid)
        if not stat.S_ISREG(st.st_mode):
            raise ApplyError(f"{name} is {_kind(st.st_mode)}; hermes-wizard reads and writes only regular files "
                             "— move it away and run again; nothing was written")
        if self.foreign and st.st_uid != self.uid:
            raise ApplyError(f"{at.path} belongs to uid {st.st_uid}, not to the home's owner (uid {self.uid}); "
                             "hermes-wizard will not copy or change it — give it to the owner first")
        return at

    def _through_link(self, link: At, link_uid: int) -> tuple[At, os.stat_result]:
        target = Path(os.path.realpath(link.path))
        if not target.is_absolute() or target.name in ("", ".", ".."):
            raise ApplyError(f"{link.name} is a symlink that does not lead to a file; fix the link first")
        fd = self._keep(os.open("/", _DIR))
        try:
            for part in target.parent.parts[1:]:
                fd = self._keep(os.open(part, _DIR, dir_fd=fd))
            st = os.stat(target.name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            raise DanglingLink(f"{link.name} is a symlink to {target}, which does not exist; fix the link first") \
                from None
        except OSError as exc:
            raise ApplyError(f"{link.name} is a symlink to {target}, which cannot be opened without following "
                             f"another link ({exc.strerror or exc}); fix the link first") from None
        if stat.S_ISLNK(st.st_mode):
            raise ApplyError(f"{link.name} is a symlink that does not resolve to a file (a loop or a chain of "
                             "links); fix the link first")
        owner = os.fstat(fd).st_uid
        if st.st_uid != link_uid or owner not in (link_uid, 0):
            raise ApplyError(f"{link.name} is a symlink to {target}, owned by another user; refusing to write "
                             "through it")
        if self.foreign and link_uid != self.uid:
            raise ApplyError(f"{link.name} is a symlink owned by uid {link_uid}, not by the home's owner; "
                             "refusing to write through it")
        return At(fd, target.name, target), st


def read_file(at: At, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The bytes of a regular file (None if absent); never blocks, never follows a link."""
    data, _ = read_with_stat(at, limit)
    return data


def read_with_stat(at: At, limit: int = MAX_FILE_BYTES) -> tuple[bytes | None, os.stat_result | None]:
    try:
        fd = os.open(at.name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW, dir_fd=at.dir_fd)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        what = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise ApplyError(f"cannot read {at.path} ({what}); nothing was written") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ApplyError(f"{at.path} is {_kind(st.st_mode)}, not a file hermes-wizard reads; nothing was written")
        chunks, size = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ApplyError(f"{at.path} is larger than {limit // (1024 * 1024)} MiB; nothing was written")
        return b"".join(chunks), st
    finally:
        os.close(fd)


def read_in_home(path: Path, limit: int = MAX_FILE_BYTES) -> bytes | None:
    """The planner's read of `<home>/<name>`: through `place`'s checks (a dangling link reads as absent)."""
    path = Path(path)
    if not os.path.lexists(path.parent):
        return None  # a home not created yet: its files are absent
    try:
        with HomeDir(path.parent) as home:
            return read_file(home.place(path.name), limit)
    except DanglingLink:
        return None


def digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def look(home: HomeDir, name: str) -> tuple[str | None, bytes | None]:
    """(fingerprint, bytes) of `name` as a writer would see it: None for an absent file (or a
    dangling link), an "<unusable: why>" fingerprint that matches no content for a refused one."""
    try:
        data = read_file(home.place(name))
    except DanglingLink:
        return None, None
    except ApplyError as exc:
        return f"<unusable: {exc}>", None
    return digest(data), data


def fingerprint_in(path: Path) -> str | None:
    """The planner's fingerprint of `<home>/<name>` (see `look`)."""
    path = Path(path)
    if not os.path.lexists(path.parent):
        return None
    try:
        with HomeDir(path.parent) as home:
            return look(home, path.name)[0]
    except ApplyError as exc:
        return f"<unusable: {exc}>"


def refusals(home_path: Path, names: Iterable[str]) -> list[str]:
    """Why each of `names` in the home cannot be read or written (empty: all usable)."""
    if not os.path.lexists(home_path):
        return []
    out = []
    try:
        with HomeDir(home_path) as home:
            for name in names:
                try:
                    read_file(home.place(name))
                except DanglingLink:
                    pass  # Hermes ignores it; a write through it is refused when it comes to that
                except ApplyError as exc:
                    out.append(str(exc))
    except ApplyError as exc:
        out.append(str(exc))
    return out
