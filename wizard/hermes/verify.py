"""`--verify`: ask the installed Hermes itself, beside our model, and compare.

The home is copied to a throw-away folder (what decides the start: regular files and
folders, links kept as links and never followed, Hermes's own venv, node, logs, sessions
and our backups left out, a byte budget), and `ask_hermes.py` runs in Hermes's own Python
on the copy: its own loader and startup rule, nothing started, no network (lazy installs
off, proxies pointed at a closed local port).  Run as root on another user's home, the
copy belongs to that user and Hermes runs as that user.

Imports nothing heavy at module level: `check` imports this module on its fast path.

Contract: `ask(...)` never raises; a failure to ask is an answer with `error` set, and
`compare` says plainly when there is nothing to compare.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from wizard.core.records import factory, record

SCRIPT = Path(__file__).with_name("ask_hermes.py")
SKIP_DIRS = {"hermes-agent", "node", "node_modules", ".wizard-backups", "logs", "sessions", "cache", "memory",
             "audio_cache", "image_cache", "checkpoints", ".git", "venv"}
COPY_BUDGET = 64 * 1024 * 1024
MAX_FILE = 16 * 1024 * 1024
TIMEOUT = 90.0
CLOSED_PORT = "http://127.0.0.1:9"  # discard: any connection attempt fails at once


@record
class HermesAnswer:
    python: str
    version: str | None = None
    would_start: bool | None = None
    refusal_platform: str | None = None
    enabled: list[str] = factory(list)
    error: str | None = None  # Hermes crashed loading its config (a verdict: it would not start)
    failure: str | None = None  # we could not ask (no verdict)

    def as_json(self) -> dict:
        return {"python": self.python, "version": self.version, "would_start": self.would_start,
                "refusal_platform": self.refusal_platform, "enabled": self.enabled, "error": self.error,
                "failure": self.failure}

    def verdict(self) -> str:
        if self.failure:
            return f"could not be asked ({self.failure})"
        if self.error:
            return f"the gateway would crash at startup ({self.error})"
        if self.would_start is None:
            return "no startup rule found to ask (enabled: " + (", ".join(self.enabled) or "none") + ")"
        if self.would_start:
            return f"the gateway would start ({', '.join(self.enabled) or 'no platforms'})"
        return f"the gateway would refuse to start, naming {self.refusal_platform}"


def hermes_python(site_packages: Path | None) -> Path | None:
    """The interpreter of the prefix that holds `site_packages` (prefix/lib/pythonX.Y/site-packages)."""
    if site_packages is None:
        return None
    for name in ("python3", "python"):
        candidate = site_packages.parent.parent.parent / "bin" / name
        if candidate.exists():
            return candidate
    return None


def ask_installed(home: Path, site_packages: Path | None, base_env: dict[str, str] | None) -> HermesAnswer:
    """`ask` the Hermes installed in `site_packages`; an answer with `failure` when there is none."""
    python = hermes_python(site_packages)
    if python is None:
        return HermesAnswer("", failure="Hermes's Python was not found (name it with --hermes-python PATH)")
    return ask(home, python, base_env or {})


def ask(home: Path, python: Path, base_env: dict[str, str]) -> HermesAnswer:
    """Hermes's own verdict on a copy of `home`, judged with `base_env` as its environment."""
    import json  # only here: `check` without --verify imports none of these
    import shutil
    import subprocess
    import tempfile

    scratch = Path(tempfile.mkdtemp(prefix="hermes-wizard-verify."))
    try:
        copy = scratch / "home"
        owner = _owner_to_run_as(home)
        _copy_home(home, copy, owner[0] if owner else None)
        # The question travels with the copy: the home's owner may not be able to read this installation
        # (a root-only venv), and Hermes then runs as that owner.
        script = scratch / SCRIPT.name
        shutil.copyfile(SCRIPT, script)
        if owner is not None:
            _chown_tree(scratch, *owner)
        env = dict(base_env)
        env.update(HERMES_HOME=str(copy), HOME=str(scratch), HERMES_DISABLE_LAZY_INSTALLS="1",
                   PIP_NO_INDEX="1", PIP_NO_INPUT="1", http_proxy=CLOSED_PORT, https_proxy=CLOSED_PORT,
                   all_proxy=CLOSED_PORT, HTTP_PROXY=CLOSED_PORT, HTTPS_PROXY=CLOSED_PORT, ALL_PROXY=CLOSED_PORT,
                   NO_PROXY="", no_proxy="", PATH=base_env.get("PATH") or os.environ.get("PATH", os.defpath))
        uid, gid = owner if owner else (None, None)  # None: run as ourselves (subprocess's defaults)
        proc = subprocess.run([str(python), "-I", str(script), str(copy)], env=env, cwd=scratch,
                              capture_output=True, text=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                              user=uid, group=gid, extra_groups=[] if owner else None)
    except subprocess.TimeoutExpired:
        return HermesAnswer(str(python), failure=f"no answer within {TIMEOUT:.0f} s")
    except OSError as exc:
        return HermesAnswer(str(python), failure=f"{type(exc).__name__}: {exc.strerror or exc}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    try:
        data = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return HermesAnswer(str(python), failure=f"it printed no answer: {tail[0][:200]}")
    return HermesAnswer(str(python), data.get("hermes"), data.get("would_start"), data.get("refusal_platform"),
                        list(data.get("enabled") or []), data.get("error"))


def _owner_to_run_as(home: Path) -> tuple[int, int] | None:
    """Root judging someone else's home runs Hermes as that someone, never as root."""
    if os.geteuid() != 0:
        return None
    st = os.stat(home, follow_symlinks=False)
    return (st.st_uid, st.st_gid) if st.st_uid != 0 else None


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.chown(path, uid, gid, follow_symlinks=False)


def _copy_home(src: Path, dst: Path, only_uid: int | None = None) -> None:
    """Copy what decides a start within a byte budget, every step relative to an open directory and
    never through a link (a link is copied as a link), so a directory swapped for a symlink while the
    copy runs cannot send it outside the home.  With `only_uid` (root judging someone else's home),
    a file that does not belong to that owner is left out: the copy becomes the owner's."""
    budget = [COPY_BUDGET]
    dst.mkdir(mode=0o700)
    try:
        top = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return

    def walk(fd: int, target: Path, depth: int) -> None:
        try:
            entries = sorted(os.scandir(fd), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            there = target / entry.name
            if stat.S_ISLNK(st.st_mode):
                try:
                    os.symlink(os.readlink(entry.name, dir_fd=fd), there)
                except OSError:
                    pass
            elif stat.S_ISDIR(st.st_mode) and entry.name not in SKIP_DIRS and depth < 6:
                try:
                    sub = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                except OSError:
                    continue
                try:
                    there.mkdir(mode=0o700)
                    walk(sub, there, depth + 1)
                finally:
                    os.close(sub)
            elif stat.S_ISREG(st.st_mode):
                _copy_regular(fd, entry.name, there, budget, only_uid)

    try:
        walk(top, dst, 0)
    finally:
        os.close(top)


def _copy_regular(dir_fd: int, name: str, target: Path, budget: list[int], only_uid: int | None) -> None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > min(MAX_FILE, budget[0]):
            return
        if only_uid is not None and st.st_uid != only_uid:
            return
        budget[0] -= st.st_size
        with open(target, "wb") as out:
            while chunk := os.read(fd, 1 << 20):
                out.write(chunk)
        os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777)
    finally:
        os.close(fd)
