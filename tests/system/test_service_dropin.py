"""The gate drop-in: real `systemd-analyze verify`, and its ExecCondition= run as systemd would.

systemd runs `ExecCondition=` by splitting the value into words (quotes removed) and turning
`$$` into `$`; `condition_argv()` does the same, then we run it from a shell-less exec, so
the test exercises exactly the command systemd would.  Outcomes required (the gate never keeps a gateway down by its own
failure): wizard absent / broken / hung → exit 0 (the gateway starts); a refusing home → 1..254 with one line naming the
fix; a healthy home → 0. """

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_systemd import system_unit, user_unit

from hermes_wizard.service import dropin
from hermes_wizard.service.units import FALLBACK_DROPIN, GATE_DROPIN, Unit, read_systemd

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"
ANALYZE = shutil.which("systemd-analyze")


def needs_analyze(test):
    """Runs the real `systemd-analyze verify` (marked systemd: under CI=true it may not skip)."""
    return pytest.mark.systemd(pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed "
                                                  "(scripts/system-deps.sh installs it)")(test))


def condition_argv(text: str) -> list[str]:
    value = next(line.split("=", 1)[1] for line in text.splitlines() if line.startswith("ExecCondition="))
    return [word.replace("$$", "$") for word in shlex.split(value)]


def run_condition(text: str, home: Path) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HERMES_HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(condition_argv(text), env=env, capture_output=True, text=True, timeout=120)


def installed_wizard(tmp_path: Path) -> Path:
    """The venv's console script when there is one, else a wrapper running this checkout."""
    script = Path(sys.executable).parent / "hermes-wizard"
    if script.is_file():
        return script
    wrapper = tmp_path / "bin" / "hermes-wizard"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m hermes_wizard "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def unit_for(tmp_path: Path, home: Path, system: bool = False) -> Unit:
    """A copy of Hermes's unit, with /bin/true as its Python (verify needs an existing binary)."""
    folder = tmp_path / "units"
    folder.mkdir(exist_ok=True)
    path = folder / "hermes-gateway.service"
    path.write_text(system_unit("/bin/true", home) if system else user_unit("/bin/true", home))
    return read_systemd(path, "system" if system else "user", tmp_path / "root", tmp_path)


def demo_home(tmp_path: Path) -> Path:
    home = tmp_path / "demo home"  # a space: the quoting must hold
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    return home


def verify(unit: Unit) -> subprocess.CompletedProcess:
    return subprocess.run([ANALYZE, "verify", "--man=no", "--generators=no", str(unit.path)],
                          capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------------- systemd-analyze verify


@needs_analyze
@pytest.mark.parametrize("system", [False, True], ids=["user-unit", "system-unit"])
@pytest.mark.parametrize("variant", ["gate", "fallback"])
def test_every_dropin_passes_systemd_analyze_verify(tmp_path, system, variant):
    unit = unit_for(tmp_path, tmp_path / "my home", system)  # a space: quoting must survive systemd's parser
    bare = verify(unit)
    assert bare.returncode == 0 and (bare.stdout + bare.stderr).strip() == "", bare  # control: the unit is clean
    written = dropin.install(unit, variant, installed_wizard(tmp_path))
    assert written.name == (GATE_DROPIN if variant == "gate" else FALLBACK_DROPIN)
    result = verify(unit)
    assert result.returncode == 0 and (result.stdout + result.stderr).strip() == "", result.stdout + result.stderr
    again = read_systemd(unit.path, unit.scope, tmp_path / "root", tmp_path)
    assert again.prevents_78
    assert (again.gate is not None) == (variant == "gate")
    assert again.restart == ("always" if variant == "gate" else "on-failure")


@needs_analyze
def test_verify_does_read_the_dropin_directory(tmp_path):
    """Negative control: a broken drop-in beside the unit is reported, so the test above means something."""
    unit = unit_for(tmp_path, tmp_path / "h")
    unit.dropin_dir.mkdir()
    (unit.dropin_dir / "broken.conf").write_text("[Service]\nExecCondition=not/absolute\nNoSuchKey=1\n")
    out = verify(unit)
    assert "broken.conf" in out.stdout + out.stderr


def test_installing_one_variant_removes_the_other_and_leaves_other_dropins(tmp_path):
    unit = unit_for(tmp_path, tmp_path / "h")
    unit.dropin_dir.mkdir()
    (unit.dropin_dir / "10-mine.conf").write_text("[Service]\nEnvironmentFile=-/etc/op.env\n")
    dropin.install(unit, "fallback")
    dropin.install(unit, "gate", "/bin/true")
    assert sorted(p.name for p in unit.dropin_dir.iterdir()) == ["10-mine.conf", GATE_DROPIN]
    assert oct((unit.dropin_dir / GATE_DROPIN).stat().st_mode & 0o777) == "0o644"
    assert dropin.current(unit, "gate", "/bin/true") and not dropin.current(unit, "fallback")


@pytest.mark.parametrize("version, variant", [(None, "gate"), (252, "gate"), (251, "gate"), (250, "fallback"),
                                              (243, "fallback"), (219, "fallback")])
def test_variant_by_systemd_version(version, variant):
    assert dropin.variant_for(version) == variant


@pytest.mark.parametrize("bad", ['/opt/it\'s/hermes-wizard', "/opt/$HOME/w", "/opt/100%/w", "/opt/a`id`/w",
                                 'relative/w', '/opt/a"b/w', "/opt/a\\b/w"])
def test_paths_systemd_or_sh_would_reinterpret_are_refused(tmp_path, bad):
    with pytest.raises(dropin.DropinError):
        dropin.gate_command(bad, tmp_path)


# ---------------------------------------------------------------------- ExecCondition= outcomes


def test_wizard_absent_lets_the_gateway_start(tmp_path):
    home = demo_home(tmp_path)  # a refusing home: only the missing wizard decides
    text = dropin.gate_text(unit_for(tmp_path, home), tmp_path / "uninstalled" / "hermes-wizard")
    result = run_condition(text, home)
    assert result.returncode == 0, result


@pytest.mark.parametrize("body", ["exit 1", "exit 203", "echo Traceback >&2; exit 70", "kill -9 $$"],
                         ids=["fails", "exit-203", "crashes", "killed"])
def test_wizard_broken_lets_the_gateway_start(tmp_path, body):
    fake = tmp_path / "hermes-wizard"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    result = run_condition(dropin.gate_text(unit_for(tmp_path, tmp_path), fake), tmp_path)
    assert result.returncode == 0, result


def test_wizard_not_executable_lets_the_gateway_start(tmp_path):
    fake = tmp_path / "hermes-wizard"
    fake.write_text("#!/bin/sh\nexit 78\n")
    fake.chmod(0o644)
    assert run_condition(dropin.gate_text(unit_for(tmp_path, tmp_path), fake), tmp_path).returncode == 0


def test_wizard_hanging_is_cut_off_and_lets_the_gateway_start(tmp_path, monkeypatch):
    if shutil.which("timeout") is None:
        pytest.skip("no coreutils timeout on this system")
    monkeypatch.setattr(dropin, "GATE_TIMEOUT_S", 1)
    fake = tmp_path / "hermes-wizard"
    fake.write_text("#!/bin/sh\nsleep 20\nexit 78\n")
    fake.chmod(0o755)
    result = run_condition(dropin.gate_text(unit_for(tmp_path, tmp_path), fake), tmp_path)
    assert result.returncode == 0


def test_refusing_home_skips_the_start_with_one_line_naming_the_fix(tmp_path):
    home = demo_home(tmp_path)
    result = run_condition(dropin.gate_text(unit_for(tmp_path, home), installed_wizard(tmp_path)), home)
    assert 1 <= result.returncode <= 254, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and result.stdout == "", result
    assert "Hermes would refuse to start" in lines[0]
    assert f"Fix: hermes-wizard doctor --fix --yes --home {home}" in lines[0]


def test_healthy_home_starts(tmp_path):
    home = tmp_path / "ok"
    home.mkdir()
    (home / ".env").write_text("TELEGRAM_BOT_TOKEN=1:x\nWEIXIN_DM_POLICY=open\nWEIXIN_ALLOW_ALL_USERS=true\n")
    (home / ".env").chmod(0o600)
    result = run_condition(dropin.gate_text(unit_for(tmp_path, home), installed_wizard(tmp_path)), home)
    assert result.returncode == 0 and result.stderr == "" and result.stdout == "", result


# ---------------------------------------------------------------------- a path systemd would split


@pytest.mark.parametrize("bad", ["/opt/w\n", "/opt/w\nExecStartPre=/bin/false", "/opt/\u202ew", "/opt/w\x85"])
def test_a_path_with_a_line_break_or_invisible_character_is_refused(tmp_path, bad):
    """`$` in the old pattern matched before a trailing newline: the line systemd got was split."""
    with pytest.raises(dropin.DropinError):
        dropin.gate_command(bad, tmp_path)
    with pytest.raises(dropin.DropinError):
        dropin.gate_command("/bin/true", bad)


@needs_analyze
def test_a_non_ascii_home_gets_a_gate_systemd_accepts_and_runs(tmp_path):
    home = tmp_path / "jos\u00e9 h\u00f6me"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    unit = unit_for(tmp_path, home)
    dropin.install(unit, "gate", installed_wizard(tmp_path))
    result = verify(unit)
    assert result.returncode == 0 and (result.stdout + result.stderr).strip() == "", result.stdout + result.stderr
    again = read_systemd(unit.path, unit.scope, tmp_path / "root", tmp_path)
    assert again.gate is not None and again.gate.home == str(home) and again.home == home
    ran = run_condition((unit.dropin_dir / GATE_DROPIN).read_text(encoding="utf-8"), home)
    assert 1 <= ran.returncode <= 254 and "Hermes would refuse to start" in ran.stderr, ran
