"""Ask an installed Hermes itself whether its gateway would start: run by HERMES'S Python, as the home's owner.

Usage (by `hermes_wizard.hermes.verify`, never imported by hermes-wizard).  Its text travels as `-c`, so the
home's owner needs no access to this installation:
    <hermes-python> -I -c <this file's text> HOME SECONDS

The process already runs as the home's owner, in a session of its own with no terminal
(wizard/core/confined.py).  It first copies HOME into a throw-away folder of its own making: what decides
the start (regular files and folders; links kept as links, never followed; Hermes's own venv, node,
logs, sessions and our backups left out), within a byte budget, a count of entries and SECONDS.  Then it
points HERMES_HOME and HOME at the copy (importing Hermes loads, and may rewrite, `$HERMES_HOME/.env`) and
follows `hermes gateway run` up to its startup check: the CLI's dotenv load, the import of `gateway.run`
(which loads it again), the runner `start_gateway` builds (its config), then the open-policy startup rule —
and stops there; no adapter is created, nothing connects.  The copy is removed when done, and when told to
stop (SIGTERM).
Prints one JSON line on stdout:
    {"hermes": version, "would_start": bool|null, "refusal_platform", "refusal_reason",
     "refusal_exit": int|null, "set_aside": [...], "enabled": [...], "error": "Type: message"|null,
     "rule_found": bool}
`refusal_exit` is the status Hermes exits with when it refuses (0, or 78 where a fix set the fatal-config
code); `set_aside` the platforms a Hermes that quarantines them started without.
or {"failure": "why"} when the home could not be copied.  `would_start` is null when this Hermes has no
startup rule we know how to call; a Hermes before 0.18.0 has none at all (true when its config loads).
Hermes's own modules (hermes_cli, gateway, hermes_constants) are imported lazily, inside the steps that
use them: they exist only in Hermes's venv, and importing them loads `.env`, so the order is the test.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

RULE_NAMES = ("_own_policy_open_startup_violation",)  # the startup rule, by the names Hermes has used
HERMES_PACKAGES = {"hermes_cli", "gateway", "hermes_constants"}  # a Python without these runs no Hermes
SKIP_DIRS = {"hermes-agent", "node", "node_modules", ".wizard-backups", "logs", "sessions", "cache", "memory",
             "audio_cache", "image_cache", "checkpoints", ".git", "venv"}
COPY_BUDGET = 64 * 1024 * 1024
MAX_FILE = 16 * 1024 * 1024
MAX_ENTRIES = 20_000  # a home holds tens of files; 200k empty files must not take the deadline
MAX_DEPTH = 6
_NOFOLLOW_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class CopyFailed(Exception):
    """The home could not be copied within its bounds (the message says which)."""


def copy_home(src: str, dst: str, deadline: float) -> None:
    """Copy what decides a start, every step relative to an open directory and never through a link
    (a link is copied as a link), so a folder swapped for a symlink while the copy runs cannot send it
    outside the home.  Raises CopyFailed past MAX_ENTRIES or `deadline` (a time.monotonic() value)."""
    budget = [COPY_BUDGET, MAX_ENTRIES]
    os.mkdir(dst, 0o700)
    try:
        top = os.open(src, _NOFOLLOW_DIR)
    except OSError:
        return
    try:
        _walk(top, dst, 0, budget, deadline)
    finally:
        os.close(top)


def _walk(fd: int, target: str, depth: int, budget: list[int], deadline: float) -> None:
    try:
        entries = sorted(os.scandir(fd), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        budget[1] -= 1
        if budget[1] < 0:
            raise CopyFailed(f"the home holds more than {MAX_ENTRIES} entries to copy")
        if time.monotonic() > deadline:
            raise CopyFailed("the home could not be copied in time")
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        there = os.path.join(target, entry.name)
        if stat.S_ISLNK(st.st_mode):
            try:
                os.symlink(os.readlink(entry.name, dir_fd=fd), there)
            except OSError:
                pass
        elif stat.S_ISDIR(st.st_mode) and entry.name not in SKIP_DIRS and depth < MAX_DEPTH:
            try:
                sub = os.open(entry.name, _NOFOLLOW_DIR, dir_fd=fd)
            except OSError:
                continue
            try:
                os.mkdir(there, 0o700)
                _walk(sub, there, depth + 1, budget, deadline)
            finally:
                os.close(sub)
        elif stat.S_ISREG(st.st_mode):
            _copy_regular(fd, entry.name, there, budget)


def _copy_regular(dir_fd: int, name: str, target: str, budget: list[int]) -> None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > min(MAX_FILE, budget[0]):
            return
        budget[0] -= st.st_size
        out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            left = st.st_size  # the size looked at: a file that grows meanwhile is not read without end
            while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
                left -= len(chunk)
                while chunk:
                    chunk = chunk[os.write(out, chunk):]
            os.fchmod(out, stat.S_IMODE(st.st_mode) & 0o777)
        finally:
            os.close(out)
    finally:
        os.close(fd)


def _answer(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"hermes": _version(), "would_start": None, "refusal_platform": None,
                               "refusal_reason": None, "refusal_exit": None, "set_aside": [], "enabled": [],
                               "error": None, "rule_found": False}
    base.update(fields)
    return base


def _before_the_rule(version: str | None) -> bool:
    """Is this a Hermes older than 0.18.0, the release that brought the open-policy startup rule?"""
    match = re.match(r"(\d+)\.(\d+)", version or "")
    return match is not None and (int(match.group(1)), int(match.group(2))) < (0, 18)


def _version() -> str | None:
    """Hermes's own number (`hermes_cli.__version__`: a repackaging or a fork numbers its package otherwise),
    else its distribution's."""
    try:
        import hermes_cli

        found = hermes_cli.__version__
        if isinstance(found, str) and found:
            return found
    except Exception:
        pass
    try:
        return metadata.version("hermes-agent")
    except Exception:
        return None


def _dotenv_load(with_home: bool) -> None:
    import hermes_cli
    from hermes_cli.env_loader import load_hermes_dotenv

    project_env = Path(hermes_cli.__file__).parent.parent.resolve() / ".env"
    if with_home:
        from hermes_constants import get_hermes_home

        load_hermes_dotenv(hermes_home=get_hermes_home(), project_env=project_env)
    else:
        load_hermes_dotenv(project_env=project_env)


def decide() -> dict[str, object]:
    try:
        _dotenv_load(with_home=False)  # the CLI's load, before the gateway module is imported
        import gateway.run as runner  # its import performs the second load
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in HERMES_PACKAGES:  # not a Hermes this Python runs: no verdict
            return {"failure": f"this Python cannot import Hermes ({type(exc).__name__}: {exc})"}
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=True)
    except Exception as exc:
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=True)
    rule = next((getattr(runner, name) for name in RULE_NAMES if hasattr(runner, name)), None)
    try:
        built = _build_runner(runner)
        config = built.config if built is not None else _loader_config(runner)
    except Exception as exc:  # the gateway would crash before its startup check
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=rule is not None)
    enabled = _enabled(config)
    if rule is None:  # before 0.18.0 there is no rule to ask: a config that loads is a gateway that starts
        return _answer(enabled=enabled, would_start=True if _before_the_rule(_version()) else None)
    try:
        reason = rule(config)
    except Exception as exc:  # the startup check itself raising: the gateway crashes there
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=True)
    step = getattr(built, "_start_check_access_policy", None)
    if step is None:  # the rule inline in the runner's start (0.18-0.20): a refusal returns, and Hermes exits 0
        return _answer(would_start=reason is None, refusal_reason=reason, enabled=enabled, rule_found=True,
                       refusal_platform=reason.split(":", 1)[0] if reason else None,
                       refusal_exit=0 if reason else None)
    return _startup_step(built, step, reason, enabled)


def _startup_step(built: Any, step: Any, reason: str | None, enabled: list[str]) -> dict[str, object]:
    """The main line's own startup step (`_start_check_access_policy`), which acts on the rule's reason: it
    refuses (and sets the exit code `start_gateway` exits with: 0 unless a fix made it 78), or sets the
    platform aside and lets the gateway start without it."""
    try:
        refused = bool(step())
    except Exception as exc:
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=True)
    after = _enabled(built.config)
    if not refused:
        return _answer(would_start=True, enabled=after, rule_found=True,
                       set_aside=[name for name in enabled if name not in after])
    told = getattr(built, "_exit_reason", None) or reason
    code = getattr(built, "_exit_code", None)
    return _answer(would_start=False, refusal_reason=told, enabled=after, rule_found=True,
                   refusal_platform=str(told).split(":", 1)[0] if told else None,
                   refusal_exit=code if isinstance(code, int) else 0)


def _enabled(config: Any) -> list[str]:
    return sorted(platform.value for platform, cfg in config.platforms.items() if cfg.enabled)


def _build_runner(runner: Any) -> Any:
    """The runner `start_gateway` builds before its check (`GatewayRunner()`, whose `__init__` loads the config
    and reads the home again, outside any guard, so a crash there is the gateway's crash), or None."""
    runner_class = getattr(runner, "GatewayRunner", None)
    return runner_class() if runner_class is not None else None


def _loader_config(runner: Any) -> Any:
    load = getattr(runner, "load_gateway_config_for_runner", None)
    if load is None:
        from gateway.config import load_gateway_config

        load = load_gateway_config
    return load()


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds through `finally`: the copy is removed


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: ask_hermes.py HOME SECONDS", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever Hermes prints goes to stderr; stdout carries only the answer
    sys.stdout = sys.stderr
    scratch = tempfile.mkdtemp(prefix="hermes-wizard-verify.")
    try:
        copy = os.path.join(scratch, "home")
        try:
            copy_home(argv[0], copy, time.monotonic() + float(argv[1]))
        except (CopyFailed, OSError) as exc:
            out.write(json.dumps({"failure": str(exc)}) + "\n")
            return 0
        os.environ.update(HERMES_HOME=copy, HOME=scratch)
        os.chdir(scratch)
        logging.disable(logging.CRITICAL)
        out.write(json.dumps(decide()) + "\n")
        return 0
    finally:
        out.flush()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
