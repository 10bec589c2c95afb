"""Ask a real Hermes's `GatewayRunner._is_user_authorized` about many (home, sender) pairs at once.

One `authz_probe.py` process per call, in the oracle venv of the version asked, with the oracle's
clean environment (tests/support/oracle/__init__.py); every home is copied first (Hermes rewrites `.env`
and merges pairing folders).
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from . import TIMEOUT, clean_env, copy_home, venv_python

AUTHZ_PROBE = Path(__file__).with_name("authz_probe.py")


def ask(version: str, requests: list[tuple[Path, list[dict]]], scratch: Path) -> list[dict]:
    """For each (home, senders): {"results": [bool | "error: ..."], "live": [...], "error": ...}."""
    scratch.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="authz-", dir=scratch))
    lines = []
    for index, (home, senders) in enumerate(requests):
        copy = copy_home(Path(home), work / f"h{index:05d}")
        lines.append(json.dumps({"home": str(copy), "senders": senders}))
    proc = subprocess.run(
        [str(venv_python(version)), str(AUTHZ_PROBE)], input="\n".join(lines) + "\n",
        env=clean_env(scratch, version=version), cwd=work, capture_output=True, text=True, timeout=TIMEOUT * 5,
    )
    answers = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if proc.returncode != 0 or len(answers) != len(requests):
        raise RuntimeError(f"authz probe failed (rc={proc.returncode}):\n{proc.stderr[-3000:]}")
    return answers
