"""A stand-in for a home's installed Hermes, planted by its (hostile) owner: it records who ran it and how.

The real Hermes lives in venvs under a root-only folder on this machine, so a throw-away user cannot run
it.  This stand-in is a real venv made from the system's own Python (`/usr/bin/python3`, which every user
can run), with just enough of Hermes's modules for `ask_hermes.py` to reach its startup decision.  When
`gateway.run` is imported, it appends one JSON line to RECORD: its uids and groups, whether it leads its
own session, whether `/dev/tty` opens (root's terminal), its environment, its descriptors, its stdin,
whose the home copy it was given is, and whether it could write a sentinel where only root may.
Its answer: the gateway would start, no platforms (or what `answer` says).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

SYSTEM_PYTHON = Path("/usr/bin/python3")

RUN_PY = '''\
import json, os, sys
RECORD = {record!r}

def _probe():
    seen = {{"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(), "groups": sorted(os.getgroups()),
             "session_leader": os.getsid(0) == os.getpid(), "env": dict(os.environ), "cwd": os.getcwd(),
             "fds": sorted(int(n) for n in os.listdir("/proc/self/fd")), "stdin": os.readlink("/proc/self/fd/0")}}
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        os.close(fd)
        seen["tty"] = "opened"
    except OSError as exc:
        seen["tty"] = exc.errno
    home = os.environ.get("HERMES_HOME", "")
    owners = set()
    for folder, _, files in os.walk(home):
        owners.add(os.lstat(folder).st_uid)
        owners.update(os.lstat(os.path.join(folder, name)).st_uid for name in files)
    seen["copy"] = home
    seen["copy_owners"] = sorted(owners)
    seen["copy_files"] = sorted(os.path.relpath(os.path.join(d, f), home) for d, _, fs in os.walk(home) for f in fs)
    with open(RECORD, "a") as out:
        out.write(json.dumps(seen) + "\\n")

_probe()
{extra}

def load_gateway_config_for_runner():
    class Config:
        platforms = {{}}
    return Config()

def _own_policy_open_startup_violation(config):
    return None
'''


def plant(venv: Path, record: Path, owner: tuple[str, int, int] | None = None, extra: str = "",
          version: str = "0.19.0") -> Path:
    """A fake Hermes `version` venv at `venv` (given to `owner`), recording into `record`; its python.
    A version no model judges (say "0.23.0") is asked by every `check`, not only `--verify`."""
    if not SYSTEM_PYTHON.exists():
        raise RuntimeError(f"{SYSTEM_PYTHON} is needed for the stand-in Hermes (Debian's python3)")
    subprocess.run([str(SYSTEM_PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "gateway").mkdir()
    (site / "gateway" / "__init__.py").write_text("")
    (site / "gateway" / "config.py").write_text("def load_gateway_config():\n    raise RuntimeError('unused')\n")
    (site / "gateway" / "run.py").write_text(RUN_PY.format(record=str(record), extra=extra))
    (site / "hermes_cli").mkdir()
    (site / "hermes_cli" / "__init__.py").write_text(f'__version__ = "{version}"\n')
    (site / "hermes_cli" / "env_loader.py").write_text("def load_hermes_dotenv(**kwargs):\n    return None\n")
    (site / "hermes_constants.py").write_text("import os\n\ndef get_hermes_home():\n"
                                              "    return os.environ['HERMES_HOME']\n")
    info = site / f"hermes_agent-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: hermes-agent\nVersion: {version}\n\n")
    if owner is not None:
        give(venv, owner)
    return venv / "bin" / "python3"


def give(top: Path, owner: tuple[str, int, int]) -> None:
    for path in [top, *top.rglob("*")]:
        os.lchown(path, owner[1], owner[2])


def records(record: Path) -> list[dict]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()]


def record_place(base: Path, owner: tuple[str, int, int]) -> Path:
    """A folder the stand-in (running as `owner`) can write its records into; the record file's path."""
    folder = base / "records"
    folder.mkdir(exist_ok=True)
    os.chown(folder, owner[1], owner[2])
    os.chmod(folder, 0o777)  # a third user's stand-in must be able to record too: that is what we look for
    return folder / "records.jsonl"


def clean(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
