"""Run Hermes's own pairing code on a home: in Hermes's Python, as the home's owner, confined.

`pairing_hermes.py` travels as `-c` text (as `ask_hermes.py` does for `--verify`) and runs with
HERMES_HOME set to the home itself — approving and revoking change the home, through Hermes's own
`PairingStore` and `hermes pairing` code, as the owner; we never write the store's files.  The run is
confined (wizard/core/confined.py): the owner's identity, a session without a terminal, an environment
built from nothing, one deadline; lazy installs off and proxies pointed at a closed port.

Contract: `run_pairing` never raises; a failure is an answer with `failure` set (a printable sentence).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hermes_wizard.core import confined
from hermes_wizard.core.safetext import visible

SCRIPT = Path(__file__).with_name("pairing_hermes.py")
TIMEOUT = 60.0
_PROXIES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
CLOSED_PORT = "http://127.0.0.1:9"


def run_pairing(home: Path, python: Path, action: str, *args: str) -> dict[str, Any]:
    """Hermes's answer (the JSON `pairing_hermes.py` prints), or {"failure": why}."""
    try:
        who = confined.identity_for(home)
    except confined.Refused as exc:
        return {"failure": str(exc)}
    env = confined.base_env(who)
    env.update(HERMES_HOME=str(home), HERMES_DISABLE_LAZY_INSTALLS="1", PIP_NO_INDEX="1", PIP_NO_INPUT="1",
               PYTHONDONTWRITEBYTECODE="1", NO_PROXY="", no_proxy="", **{name: CLOSED_PORT for name in _PROXIES})
    argv = [str(python), "-I", "-c", SCRIPT.read_text(encoding="utf-8"), action, *args]
    try:
        done = confined.run(argv, who, env, TIMEOUT)
    except OSError as exc:
        return {"failure": f"Hermes's Python could not be run: {exc.strerror or exc}"}
    if done.timed_out:
        return {"failure": f"Hermes gave no answer within {TIMEOUT:.0f} s"}
    data = done.answer()
    if data is None:
        return {"failure": visible(done.complaint()[:300])}
    if data.get("failure"):
        return {"failure": visible(str(data["failure"])[:300])}
    return data
