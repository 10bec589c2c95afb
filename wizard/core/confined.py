"""confined: run a program that came from a home (its Hermes, its Python) as the home's owner, isolated.

Root runs hermes-wizard on homes owned by someone else; anything found through such a home is that
person's code.  `run` starts it so that it can never act as root or on root's session:
* privileges dropped to the home's owner first (root's supplementary groups replaced by the owner's own,
  as a login, systemd's `User=` or `sudo -u` give them — the gateway reads its files with them — then gid,
  then uid), the owner decided from the home folder as `homeroot.open_home` opens it (a profile through
  its root);
* a new session (`setsid`): no controlling terminal, so `/dev/tty` cannot be opened and nothing can be
  pushed into root's terminal input; stdin is /dev/null, stdout and stderr are pipes read here with a
  bound (the caller escapes whatever it shows);
* every descriptor above 2 closed; the working directory `/`; umask 077;
* an environment built from nothing (`base_env`: a fixed PATH, HOME, LANG) plus what the caller adds,
  never the caller's own;
* one deadline over the whole run: past it the process group is told to stop (SIGTERM, then SIGKILL).
Not root, the program runs as ourselves, isolated the same way.  Nothing here chowns or copies a file:
what the program needs from the home it reads itself, with the owner's rights.

Contract: `identity_for` raises `Refused` (a sentence) when whom to run as cannot be decided safely;
`run` never raises for the program's behaviour (an exec failure is an `OSError`).
"""

from __future__ import annotations

import json
import os
import pwd
import selectors
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hermes_wizard.core.homeroot import open_home
from hermes_wizard.core.values import Value, value_class

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
OUT_LIMIT = 1 << 20
ERR_LIMIT = 64 * 1024
GRACE = 2.0  # seconds between SIGTERM and SIGKILL


class Refused(Exception):
    """Whom to run the home's program as could not be decided safely; nothing was run."""


@value_class
class Identity(Value):
    uid: int
    gid: int
    name: str
    home_dir: str  # the user's own home (HOME), "/" when unknown
    switch: bool  # True: drop to uid/gid before exec (we are root and this is not us)
    groups: tuple[int, ...] = ()  # the user's supplementary groups (getgrouplist), set when switching


@value_class
class Finished(Value):
    returncode: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    overflowed: bool = False

    def answer(self) -> dict[str, Any] | None:
        """The last stdout line that is a JSON object (how the scripts run in Hermes's Python answer), or None."""
        lines = [line for line in self.stdout.decode("utf-8", "replace").splitlines() if line.startswith("{")]
        try:
            data = json.loads(lines[-1])
        except (IndexError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def complaint(self) -> str:
        """Why there is no answer, as the child said it: its last stderr line, else its exit status (unescaped)."""
        said = self.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
        return said[0] if said else f"exit status {self.returncode}"


def identity_for(home: Path) -> Identity:
    """Whom a program from `home` runs as: ourselves when we are not root; as root, the owner of the home
    folder, opened without following a link (a profile: through its root, owned by the root's owner)."""
    me = os.geteuid()
    if me != 0:
        return _identity(me, os.getegid(), switch=False)
    try:
        fd = open_home(home)
    except OSError as exc:
        raise Refused(f"whose home {home} is cannot be decided safely ({exc.strerror or exc}); "
                      "nothing from it was run") from None
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return _identity(st.st_uid, None, switch=st.st_uid != 0)


def identity_of(uid: int, switch: bool) -> Identity:
    """The user `uid` as a login sets it up (primary group and every supplementary one when switching)."""
    return _identity(uid, None, switch)


def _identity(uid: int, gid: int | None, switch: bool) -> Identity:
    try:
        entry = pwd.getpwuid(uid)
        groups = tuple(os.getgrouplist(entry.pw_name, entry.pw_gid)) if switch else ()
        return Identity(uid, entry.pw_gid if gid is None else gid, entry.pw_name, entry.pw_dir or "/", switch, groups)
    except (KeyError, OSError):  # a uid without a passwd entry: its own group, no home, no other group
        return Identity(uid, uid if gid is None else gid, str(uid), "/", switch)


def base_env(who: Identity) -> dict[str, str]:
    """The environment every confined program starts from: nothing of ours."""
    return {"PATH": SAFE_PATH, "HOME": who.home_dir, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def run(argv: Sequence[str], who: Identity, env: Mapping[str, str], timeout: float,
        out_limit: int = OUT_LIMIT, err_limit: int = ERR_LIMIT) -> Finished:
    """Run `argv` as `who`, confined (see the module doc), for at most `timeout` seconds."""
    uid, gid = (who.uid, who.gid) if who.switch else (None, None)
    groups: list[int] | None = list(who.groups) if who.switch else None  # never root's own groups
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(env), cwd="/", close_fds=True, start_new_session=True, umask=0o077,
                            user=uid, group=gid, extra_groups=groups)
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None and proc.stderr is not None
    out_fd = proc.stdout.fileno()
    kept = {out_fd: bytearray(), proc.stderr.fileno(): bytearray()}
    timed_out = overflowed = False
    with selectors.DefaultSelector() as chosen:
        chosen.register(proc.stdout, selectors.EVENT_READ)
        chosen.register(proc.stderr, selectors.EVENT_READ)
        while chosen.get_map() and not overflowed:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in chosen.select(min(left, 1.0)):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    chosen.unregister(key.fileobj)
                elif key.fd == out_fd:  # the answer: its head, and no more than out_limit of it
                    overflowed = len(kept[out_fd]) + len(chunk) > out_limit
                    kept[out_fd] += chunk[:out_limit - len(kept[out_fd])]
                else:  # what it said on the way: its last err_limit bytes
                    kept[key.fd] = (kept[key.fd] + chunk)[-err_limit:]
    code = _finish(proc, max(0.0, deadline - time.monotonic()), stop=timed_out or overflowed)
    out, err = bytes(kept[out_fd]), bytes(kept[proc.stderr.fileno()])
    proc.stdout.close()
    proc.stderr.close()
    return Finished(code, out, err, timed_out, overflowed)


def _finish(proc: subprocess.Popen[bytes], left: float, stop: bool) -> int | None:
    """The exit status; the whole process group is stopped when it overran (or outlives the deadline)."""
    if not stop:
        try:
            return proc.wait(timeout=left)
        except subprocess.TimeoutExpired:
            pass
    for sig, wait in ((signal.SIGTERM, GRACE), (signal.SIGKILL, GRACE)):
        try:
            os.killpg(proc.pid, sig)  # its own session: the group is the program and its children
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    return None
