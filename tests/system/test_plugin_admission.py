"""Where Hermes admits plugins through its package manager (the main line; run here: the 0.22.2 fork).

`hermes plugins enable wizard` there goes through `hermes_cli.plugins_admission`, which first downloads Hermes's
own managed CPython 3.14; offline that is refused and nothing changes, so `hermes wizard` does not exist.  What
our code can see is the Hermes it finds (a regular file `hermes_cli/plugins_admission.py`, one stat) and whether
each home lists the plugin: `check` then says what that takes and that `hermes-wizard` itself does the same.

The fork's tests run its real `hermes` from the plugin venv (scripts/plugin-venv.sh 0.22.2), offline: proxies
point at a closed local port, whatever the machine's network.  The attacker tests use a fake Hermes venv whose
files would record it if anything of it ran: the home's Python is never run, and root is told to run the owner's
`hermes` as the owner.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from apply_homes import ROOT
from plugin_box import TOKEN, Box, require

from hermes_wizard.core import keyring_store
from system.test_hermes_plugin import CONFIG_DRIVER, DEMO, _verdict
from system.test_root_homes import user_home

CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens, the download fails at once
OFFLINE = {name: CLOSED for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY")}
NOT_ENABLED = "its plugin is not enabled here, so there is no `hermes wizard`"


def _fork(tmp_path, source_home: Path | None = DEMO) -> Box:
    box = Box(tmp_path, require("0.22.2"), source_home)
    box.env |= OFFLINE
    if (box.home / ".env").exists():
        os.chmod(box.home / ".env", 0o600)
    return box


def _alone(box: Box):
    return box.run("hermes-wizard", "check", "--home", str(box.home), "--hermes-python", box.hermes.python)


@pytest.mark.oracle
@pytest.mark.slow
def test_the_fork_refuses_the_plugin_offline_and_check_says_what_to_do_instead(tmp_path):
    box = _fork(tmp_path)
    before = (box.home / "config.yaml").read_bytes()
    enabled = box.run("hermes", "plugins", "enable", keyring_store.PLUGIN_NAME, timeout=300,
                      extra={"COLUMNS": "1000"})  # Rich wraps its lines at the width it finds
    said = enabled.stdout + enabled.stderr
    # the fork's own words: its package manager wants CPython 3.14 first, and the download fails
    assert enabled.returncode == 1, said
    assert "Enable 'wizard' refused" in said and "cpython-3.14" in said, said
    assert ("config.yaml and the active environment are unchanged. Run `hermes pm install` to resolve "
            "dependencies, then retry.") in said, said
    assert (box.home / "config.yaml").read_bytes() == before  # "config.yaml ... unchanged": so it is
    missing = box.run("hermes", "wizard", "check")
    assert missing.returncode == 2 and "'wizard' is not a `hermes` command" in missing.stdout + missing.stderr
    alone = _alone(box)
    assert alone.returncode == 78 and "Traceback" not in alone.stderr, alone.stdout + alone.stderr
    tip = alone.stdout.splitlines()[-1]
    assert tip.startswith("Tip: hermes-wizard is in Hermes's venv") and NOT_ENABLED in tip, alone.stdout
    assert "`hermes plugins enable wizard`" in tip and "`hermes pm install`" in tip, tip
    assert "`hermes-wizard` itself does the same checks and repairs" in tip, tip


@pytest.mark.oracle
@pytest.mark.slow
def test_the_fork_loads_the_plugin_its_config_lists_and_the_tip_is_gone(tmp_path):
    """The fork's loader gates on `plugins.enabled` alone (hermes_cli/plugins_discovery.py `gate_manifest`):
    listed by hand, no admission needed, `hermes wizard` works and agrees with `hermes-wizard`."""
    box = _fork(tmp_path)
    with open(box.home / "config.yaml", "a") as config:
        config.write(f"plugins:\n  enabled: [{keyring_store.PLUGIN_NAME}]\n")
    inside = box.run("hermes", "wizard", "check")
    alone = _alone(box)
    assert inside.returncode == alone.returncode == 78, inside.stdout + inside.stderr
    assert _verdict(inside.stdout) == _verdict(alone.stdout).replace("hermes-wizard doctor", "hermes wizard doctor")
    assert "Tip:" not in alone.stdout


@pytest.mark.oracle
@pytest.mark.slow
def test_the_forks_gateway_config_reads_the_keyring_through_a_listed_plugin(tmp_path):
    box = _fork(tmp_path, None)
    box.keyring_home()  # lists the plugin itself, as `secrets migrate --to keyring` does
    applied = box.python(CONFIG_DRIVER)
    assert applied.returncode == 0, applied.stderr
    import hashlib

    assert json.loads(applied.stdout.splitlines()[-1]) == {
        "enabled": True, "fetches": 1, "token_sha256": hashlib.sha256(TOKEN.encode()).hexdigest()}
    box.assert_no_secret_leaked()


# --- a fake Hermes in the home: what of it could run, never does --------------------------------------------

PLUGIN_ENTRY = "[hermes_agent.plugins]\nwizard = hermes_wizard.faces.hermes_plugin\n"


def _planted_hermes(prefix: Path, marker: Path, *, admission: str = "code", plugin: bool = True) -> Path:
    """A Hermes venv at `prefix` whose every runnable file writes `marker` when run or imported.  `admission`:
    "code" (a plugins_admission.py that records its import), "fifo", or "none"."""
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "gateway").mkdir(parents=True)
    (site / "gateway" / "config.py").write_text("")
    (site / "hermes_cli").mkdir()
    record = f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
    (site / "hermes_cli" / "__init__.py").write_text(record)
    if admission == "code":
        (site / "hermes_cli" / "plugins_admission.py").write_text(record)
    elif admission == "fifo":
        os.mkfifo(site / "hermes_cli" / "plugins_admission.py")
    if plugin:
        info = site / "hermes_wizard-0.1.0.dist-info"
        info.mkdir()
        (info / "entry_points.txt").write_text(PLUGIN_ENTRY)
    (prefix / "bin").mkdir()
    for name in ("hermes", "python", "pip"):
        (prefix / "bin" / name).write_text(f"#!/bin/sh\necho ran > {marker}\n")
        (prefix / "bin" / name).chmod(0o755)
    return prefix


def _check(home: Path, *extra: str, env: dict | None = None):
    return subprocess.run([sys.executable, "-m", "hermes_wizard", "check", "--home", str(home), *extra], cwd=ROOT,
                          env=(env or dict(os.environ)) | {"PYTHONPATH": str(ROOT)}, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("admission", ["code", "fifo", "none"])
def test_the_homes_hermes_is_only_looked_at(tmp_path, admission):
    """Its plugins_admission.py decides the tip by existing as a regular file: never imported (it would write the
    marker), a FIFO in its place never waited on (and not taken for one), no program of the venv run."""
    marker = tmp_path / "ran"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=123:abc\nTELEGRAM_ALLOWED_USERS=5\n")
    (home / ".env").chmod(0o600)
    venv = _planted_hermes(home / "hermes-agent" / "venv", marker, admission=admission)
    done = _check(home, "--hermes-python", str(venv / "bin" / "python"))
    assert "Traceback" not in done.stderr, done.stderr
    assert not marker.exists()
    tipped = NOT_ENABLED in done.stdout
    assert tipped == (admission == "code"), done.stdout


def test_hw502_on_an_admitting_hermes_names_the_download_and_the_way_back(tmp_path):
    marker = tmp_path / "ran"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text("TELEGRAM_ALLOWED_USERS=5\n")
    (home / ".env").chmod(0o600)
    service, username = keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN")
    (home / "config.yaml").write_text(f"secrets:\n  {keyring_store.SOURCE_NAME}:\n    enabled: true\n    env:\n"
                                      f"      TELEGRAM_BOT_TOKEN: {{service: {service}, username: '{username}'}}\n")
    venv = _planted_hermes(home / "hermes-agent" / "venv", marker)
    env = dict(os.environ) | {"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    done = _check(home, "--hermes-python", str(venv / "bin" / "python"), "--format", "json", env=env)
    found = {f["code"]: f for f in json.loads(done.stdout)["findings"]}
    assert "`hermes pm install` online first" in found["HW502"]["fix"], found["HW502"]
    assert not marker.exists()


def test_root_is_told_to_run_the_owners_hermes_as_the_owner(place, owner):
    """As root on a user's home whose Hermes admits plugins: the tip's commands are that venv's own `hermes`,
    run with `sudo -u <owner>` (a bare `hermes` would be root's PATH, or the owner's script run as root)."""
    base, _ = place
    home = user_home(base, owner)
    marker = base / "ran"
    venv = _planted_hermes(home / "hermes-agent" / "venv", marker)
    for path in [home / "hermes-agent", *(home / "hermes-agent").rglob("*")]:
        os.lchown(path, owner[1], owner[2])
    env = {k: v for k, v in os.environ.items() if k not in ("HERMES_HOME", "HERMES_WIZARD_HERMES_PYTHON")}
    done = _check(home, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    assert f"`sudo -u {owner[0]} {venv}/bin/hermes plugins enable wizard`" in done.stdout, done.stdout
    assert f"`sudo -u {owner[0]} {venv}/bin/hermes pm install`" in done.stdout, done.stdout
    assert not marker.exists()
