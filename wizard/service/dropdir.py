"""The drop-in folder of one unit (`<unit>.d/`), opened once so that whoever owns it cannot steer root.

A user unit lives in `~/.config/systemd/user/`, a folder its owner controls, while hermes-wizard may
run as root.  Every write, read-for-check and removal of our drop-in goes through ONE descriptor of
the folder (`DropinFolder`), with `dir_fd=` calls that never follow a link, so a name swapped between
two calls makes the call fail or act on the folder that was checked — never on another one.

Rules, checked when the folder is opened (`FolderRefused`, an OSError, when broken; nothing is done):

* The drop-in folder itself is never a symbolic link (it would point root at another unit's folder,
  e.g. `/etc/systemd/system/sshd.service.d/`).
* The way to the unit's folder is walked one component at a time; links higher up are followed (a
  `~/.config` linked into a dotfiles tree is common), but every directory looked in and every link
  followed is noted with its owner.  With the unit's folder, the unit file and the drop-in folder,
  those owners may be root and at most ONE other user; that user (when there is one) must own the
  unit's folder where it really is — so root only ever writes where that user could write anyway
  (a user's link into `/etc/systemd/system` is refused).  A directory on the way that anyone may
  write in (world-writable, not sticky) is refused too.
* What root creates in a user's unit folder (the `.d` folder, our drop-in) belongs to that user, as if
  they had made it: their own `undo` (or `rm`) can take it out again.
Messages name paths through safetext.visible: they come from the home's owner.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from hermes_wizard.core.atomic import FileOps, write_atomic
from hermes_wizard.core.homefs import At
from hermes_wizard.core.safetext import visible
from hermes_wizard.core.smallfile import real_path
from hermes_wizard.service.common import VARIANT_FILES

HEADER = b"# Written by hermes-wizard"  # the first bytes of every drop-in of ours
MAX_LINKS = 40  # as the kernel's own limit on links followed in one lookup
MAX_DROPIN_BYTES = 64 * 1024
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class FolderRefused(OSError):
    """The drop-in folder is not one hermes-wizard writes in or removes from; the message says why."""


class DropinFolder:
    """`<unit path>.d/` opened safely (see the module doc); `fd` is None while the folder is absent.
    Use as a context manager; `ensure()` creates the folder when a write needs it."""

    def __init__(self, unit_path: Path) -> None:
        unit_path = Path(unit_path).absolute()
        self.path = unit_path.parent / f"{unit_path.name}.d"
        self.fd: int | None = None
        unit_dir, self._owners = _walk(unit_path.parent, self.path)
        self._unit_dir: int | None = unit_dir
        try:
            _not_open_to_all(unit_dir, unit_path.parent, self.path)
            folder = os.fstat(unit_dir)
            self._owners.add(folder.st_uid)
            # Root writing in a user's unit folder creates what the user could have: theirs to remove.
            self._grant = (folder.st_uid, folder.st_gid) if folder.st_uid != 0 and os.geteuid() == 0 else None
            try:
                self._owners.add(os.stat(unit_path.name, dir_fd=unit_dir, follow_symlinks=False).st_uid)
            except FileNotFoundError:
                pass  # a unit removed since: our drop-ins beside it may still be taken out
            self._check_owners()  # before anything is created there
            self._open(create=False)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> DropinFolder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in (self.fd, self._unit_dir):
            if fd is not None:
                os.close(fd)
        self.fd = self._unit_dir = None

    def ensure(self) -> int:
        if self.fd is None:
            self._open(create=True)
        assert self.fd is not None
        return self.fd

    def _open(self, create: bool) -> None:
        name, parent = self.path.name, self._unit_dir
        assert parent is not None, "used after close()"
        made = False
        if create:
            try:
                os.mkdir(name, 0o755, dir_fd=parent)
                made = True
            except FileExistsError:
                pass
        try:
            fd = os.open(name, _DIR, dir_fd=parent)
        except FileNotFoundError:
            if create:
                raise
            return
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(name, parent):
                target = os.readlink(name, dir_fd=parent)
                raise FolderRefused(f"{visible(self.path)} is a symbolic link (to {visible(target)}); hermes-wizard "
                                    "writes and removes its drop-ins only in a real folder beside the unit: replace "
                                    "the link with a folder") from None
            raise
        self.fd = fd
        if made and self._grant is not None:
            os.fchown(fd, *self._grant)  # through the descriptor: the folder just made, never a link
        _not_open_to_all(fd, self.path, self.path)
        self._owners.add(os.fstat(fd).st_uid)
        self._check_owners()

    def _check_owners(self) -> None:
        assert self._unit_dir is not None, "used after close()"
        users = sorted(self._owners - {0})
        if len(users) > 1:
            raise FolderRefused(f"{visible(self.path)}: the folders and links on the way to it belong to more than one "
                                f"user ({', '.join(f'uid {u}' for u in users)}); hermes-wizard changes drop-ins only "
                                "where root and the unit's owner alone have a say")
        folder_owner = os.fstat(self._unit_dir).st_uid
        if users and folder_owner != users[0]:
            raise FolderRefused(f"{visible(self.path)} is reached through folders or links of uid {users[0]} but lies "
                                f"in {visible(_where(self._unit_dir))}, a folder of uid {folder_owner}, not of uid "
                                f"{users[0]}; hermes-wizard will not write or remove a drop-in there")

    def is_file(self, name: str) -> bool:
        if self.fd is None:
            return False
        try:
            return stat.S_ISREG(os.stat(name, dir_fd=self.fd, follow_symlinks=False).st_mode)
        except OSError:
            return False

    def variants(self) -> list[str]:
        """Our variants ("gate", "fallback") present as regular files."""
        return [variant for variant, name in VARIANT_FILES.items() if self.is_file(name)]

    def read(self, name: str) -> bytes | None:
        """A regular file's bytes (at most MAX_DROPIN_BYTES + 1); None when absent or anything else."""
        opened = self._open_regular(name)
        if opened is None:
            return None
        try:
            return os.read(opened[0], MAX_DROPIN_BYTES + 1)
        finally:
            os.close(opened[0])

    def _open_regular(self, name: str) -> tuple[int, os.stat_result] | None:
        """`name` opened in the folder without following a link or waiting, with its stat; None unless a
        regular file."""
        if self.fd is None:
            return None
        try:
            fd = os.open(name, _FILE, dir_fd=self.fd)
        except OSError:
            return None
        try:
            seen = os.fstat(fd)
        except OSError:
            seen = None
        if seen is not None and stat.S_ISREG(seen.st_mode):
            return fd, seen
        os.close(fd)
        return None

    def write(self, name: str, data: bytes) -> Path:
        """Replace `name` atomically, 0644 like the unit (a link in its place is replaced, not followed)."""
        ops = _GivenTo(*self._grant) if self._grant is not None else FileOps()
        write_atomic(At(self.ensure(), name, self.path / name), data, ops, mode=0o644)
        return self.path / name

    def remove_ours(self, name: str) -> bool:
        """Remove `name` when it is a regular file starting with our header, and still the file checked."""
        opened = self._open_regular(name)
        if opened is None or self.fd is None:
            return False
        fd, seen = opened
        try:
            if os.read(fd, len(HEADER)) != HEADER:
                return False
        finally:
            os.close(fd)
        try:
            now = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if (now.st_dev, now.st_ino) != (seen.st_dev, seen.st_ino):
            return False  # replaced since the check: not ours to remove
        os.unlink(name, dir_fd=self.fd)
        return True


class _GivenTo(FileOps):
    """File operations whose new file belongs to the unit folder's owner (set on the temp file, before the
    rename), whoever owned the one it replaces."""

    def __init__(self, uid: int, gid: int) -> None:
        self.uid, self.gid = uid, gid

    def set_owner_mode(self, fd: int, mode: int, uid: int | None, gid: int | None) -> None:
        super().set_owner_mode(fd, mode, self.uid, self.gid)


def present(unit_path: Path) -> list[str]:
    """Our variants on disk beside `unit_path` now; none when the folder is refused or unreadable."""
    try:
        with DropinFolder(unit_path) as folder:
            return folder.variants()
    except OSError:
        return []


def _walk(folder: Path, about: Path) -> tuple[int, set[int]]:
    """Open `folder` (absolute) one component at a time, following each link by reading it (never
    by the kernel): (its descriptor, the owners of every directory looked in and link followed)."""
    pending = list(folder.parts[1:])
    chain = [os.open("/", _DIR)]  # the directories entered, "/" first: ".." steps back one
    owners: set[int] = set()
    links = 0
    try:
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if len(chain) > 1:
                    os.close(chain.pop())
                continue
            here = chain[-1]
            _not_open_to_all(here, folder, about)
            owners.add(os.fstat(here).st_uid)
            try:
                chain.append(os.open(part, _DIR, dir_fd=here))
                continue
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR) or not _is_link(part, here):
                    raise
            links += 1
            if links > MAX_LINKS:
                raise FolderRefused(f"{visible(about)}: too many symbolic links on the way to {visible(folder)}")
            owners.add(os.stat(part, dir_fd=here, follow_symlinks=False).st_uid)
            target = Path(os.readlink(part, dir_fd=here))
            if target.is_absolute():
                while len(chain) > 1:
                    os.close(chain.pop())
            pending[:0] = list(target.parts[1:] if target.is_absolute() else target.parts)
        return chain.pop(), owners
    finally:
        for fd in chain:
            os.close(fd)


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _not_open_to_all(fd: int, folder: Path, about: Path) -> None:
    """A folder anyone may rename entries in (world-writable without the sticky bit) steers nothing of ours."""
    mode = os.fstat(fd).st_mode
    if mode & stat.S_IWOTH and not mode & stat.S_ISVTX:
        raise FolderRefused(f"{visible(about)}: {visible(_where(fd, folder))} is writable by every user; hermes-wizard "
                            "will not write or remove a drop-in through it")


def _where(fd: int, fallback: Path | None = None) -> str:
    """Where an open folder really is (for messages)."""
    where = real_path(fd)
    return where if where != "?" or fallback is None else str(fallback)
