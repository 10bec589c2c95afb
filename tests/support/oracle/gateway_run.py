"""The real ``hermes gateway run`` of one Hermes version, on a copy of a home (see ``oracle``).

``run_gateway`` starts it with the oracle's clean environment; with
``stop_after_check`` the process ends right after the startup policy check
(``gateway_hook/sitecustomize.py``), so homes that pass return too, and
``GatewayRun.answer()`` gives the verdict in ``probe.py``'s result shape.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from . import HERMES_VERSION, TIMEOUT, clean_env, copy_home, hermes_command

HOOK_DIR = Path(__file__).with_name("gateway_hook")


class GatewayRun:
    """What one real ``hermes gateway run`` did (on a copy of a home)."""

    def __init__(self, home: Path, returncode: int, output: str, report: dict | None) -> None:
        self.home, self.returncode, self.output, self.report = home, returncode, output, report

    def answer(self) -> dict:
        """The run in probe.py's result shape (needs ``stop_after_check``)."""
        if self.report is None:  # never reached the check: crashed building the config
            last = [ln for ln in self.output.splitlines() if ln.strip()][-1:] or [""]
            return {"would_start": False, "refusal_platform": None, "enabled": [], "order": [],
                    "error": f"exit {self.returncode}: {last[0]}"}
        reason = self.report["reason"]
        return {"would_start": reason is None, "refusal_platform": reason.split(":", 1)[0] if reason else None,
                "enabled": sorted(self.report["order"]), "order": self.report["order"], "error": None}


def run_gateway(home: Path, scratch: Path, *, stop_after_check: bool = False,
                timeout: float = TIMEOUT, node: str | None = None, version: str = HERMES_VERSION) -> GatewayRun:
    """Run the real ``hermes gateway run`` of Hermes *version* on a copy of *home* with a clean env.

    With ``stop_after_check`` the process is ended right after the startup policy
    check (see gateway_hook/sitecustomize.py), so passing homes return too.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="gateway-", dir=scratch))
    copy = copy_home(Path(home), work / "home")
    env = clean_env(scratch, hermes_home=copy, node=node, version=version)
    report = work / "report.json"
    if stop_after_check:
        env["PYTHONPATH"] = str(HOOK_DIR)
        env["ORACLE_GATEWAY_REPORT"] = str(report)
    proc = subprocess.run(
        [str(hermes_command(version)), "gateway", "run"],
        env=env, cwd=work, capture_output=True, text=True, timeout=timeout,
    )
    data = json.loads(report.read_text()) if report.exists() else None
    return GatewayRun(copy, proc.returncode, proc.stdout + proc.stderr, data)
