"""End to end: the real ``hermes gateway run`` on the demo home, then our ``check``.

Hermes 0.19.0 runs from the oracle venv (``$HERMES_ORACLE_VENV``) on a copy of
assets/homes/death-loop with a clean environment (HOME = a temp dir, HERMES_HOME =
the copy, HERMES_DISABLE_LAZY_INSTALLS=1; see oracle.clean_env). It refuses to
start -- and exits 0, which is what makes systemd restart it forever. Our
``check`` on a fresh copy must exit 78 and name the same platform (whatsapp:
it comes from config.yaml, so Hermes checks it before the env-only weixin).
"""

from __future__ import annotations

import json
import re

import oracle
import pytest
from oracle.cases import BY_NAME, DEMO_HOME
from oracle.compare import run_ours

# One worker runs the module (xdist --dist loadgroup): its module-scoped real gateway run is then made once.
pytestmark = pytest.mark.xdist_group("e2e-gateway")
REFUSAL = re.compile(r"Refusing to start: (\S+) has dm_policy/group_policy set to 'open'")


@pytest.fixture(scope="module")
def gateway_run(tmp_path_factory):
    oracle.require_oracle()
    scratch = tmp_path_factory.mktemp("e2e")
    run = oracle.run_gateway(BY_NAME["death-loop"].write(scratch / "demo"), scratch, timeout=120)
    match = REFUSAL.search(run.output)
    return run, match.group(1) if match else None


def test_real_gateway_refuses_demo_home_and_exits_zero(gateway_run):
    run, platform = gateway_run
    assert run.returncode == 0, f"hermes gateway run exited {run.returncode}:\n{run.output[-3000:]}"
    assert "Refusing to start" in run.output, run.output[-3000:]
    assert platform == "whatsapp", run.output[-3000:]
    assert f"Gateway exiting cleanly: {platform}: open policy without allow-all opt-in" in run.output
    state = json.loads((run.home / "gateway_state.json").read_text())
    assert state != json.loads((DEMO_HOME / "gateway_state.json").read_text()), "Hermes did not write its state"
    assert (state["gateway_state"], state["exit_reason"]) == (
        "startup_failed", f"{platform}: open policy without allow-all opt-in")


def test_check_exits_78_naming_the_platform_hermes_named(gateway_run, tmp_path):
    _, platform = gateway_run
    assert platform, "the real gateway did not refuse; see test_real_gateway_refuses_demo_home_and_exits_zero"
    home = BY_NAME["death-loop"].write(tmp_path / "demo")  # fresh copy, never touched by Hermes
    rc, ours, raw = run_ours(home, oracle.host_env(tmp_path / "scratch"))
    assert ours is not None, f"check did not print JSON (exit {rc}):\n{raw[-2000:]}"
    assert rc == 78, f"check exited {rc}, expected 78:\n{raw[-2000:]}"
    assert ours["would_start"] is False
    assert (ours.get("refusal") or {}).get("platform") == platform, ours.get("refusal")
