"""Installed the way users install it: a built wheel in a fresh venv, far from the source tree.

Builds the wheel once (pip wheel, isolated build), installs it into a new venv and runs the
console script from a working directory that has no access to this checkout: `--version`,
`check`, `explain`, `setup` without a terminal, the demo, and the TUI to its first screen.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _run(cmd, cwd: Path, env: dict, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict]:
    work = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HERMES_HOME", "VIRTUAL_ENV")}
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"), str(REPO)],
                 work, env, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((work / "dist").glob("hermes_wizard-*.whl"))
    venv = work / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], work, env).returncode == 0
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                str(wheel)], work, env, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    outside = work / "elsewhere"
    outside.mkdir()
    return wheel, venv, dict(env, PATH=f"{venv / 'bin'}:{env.get('PATH', '')}", TERM="dumb")


def test_the_wheel_carries_the_stylesheet_and_the_demo_home(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "wizard/_assets/wizard.tcss" in names
    assert "wizard/_assets/homes/death-loop/.env" in names and "wizard/_assets/homes/death-loop/config.yaml" in names
    assert "wizard/hermes/versions.py" in names
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]


def test_the_installed_commands_work_without_the_source_tree(installed, tmp_path):
    _, venv, env = installed
    cwd = venv.parent / "elsewhere"
    tool = str(venv / "bin" / "hermes-wizard")
    where = _run([str(venv / "bin" / "python"), "-c", "import wizard, screens; print(wizard.__file__)"], cwd, env)
    assert str(venv) in where.stdout and str(REPO) not in where.stdout
    version = _run([tool, "--version"], cwd, env)
    assert version.returncode == 0 and "models Hermes 0.18.0, 0.18.1, 0.18.2, 0.19.0" in version.stdout
    demo = _run([tool, "demo"], cwd, env, stdin=subprocess.DEVNULL)
    assert demo.returncode == 0, demo.stderr
    assert "WHATSAPP_ENABLED=false" in demo.stdout and "the gateway will start" in demo.stdout
    home = Path(demo.stdout.split("demo: the copy is at ", 1)[1].split(" ", 1)[0])
    check = _run([tool, "check", "--home", str(home), "--format", "json"], cwd, env)
    assert check.returncode == 78 and json.loads(check.stdout)["refusal"]["platform"] == "whatsapp"
    explain = _run([tool, "explain", "HW101"], cwd, env)
    assert explain.returncode == 0 and "open-policy-without-opt-in" in explain.stdout
    setup = _run([tool, "setup", "--home", str(tmp_path / "new")], cwd, env, stdin=subprocess.DEVNULL)
    assert setup.returncode == 2 and "Traceback" not in setup.stderr
    fixed = _run([tool, "doctor", "--home", str(home), "--fix", "--yes"], cwd, env, stdin=subprocess.DEVNULL)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    undone = _run([tool, "undo", "--yes", "--home", str(home)], cwd, env, stdin=subprocess.DEVNULL)
    assert undone.returncode in (0, 78) and "Traceback" not in undone.stderr


def test_the_installed_tui_reaches_its_first_screen(installed):
    _, venv, env = installed
    script = (
        "import asyncio, shutil, tempfile, pathlib\n"
        "from wizard.core.bundled import example_home\n"
        "from screens.app import WizardApp\n"
        "home = pathlib.Path(tempfile.mkdtemp()) / 'home'\n"
        "shutil.copytree(example_home(), home)\n"
        "async def main():\n"
        "    app = WizardApp(home, 'default', mode='doctor')\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.pause()\n"
        "        print('SCREEN', type(app.screen).__name__)\n"
        "asyncio.run(main())\n"
    )
    shown = _run([str(venv / "bin" / "python"), "-c", script], venv.parent / "elsewhere", env)
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert "SCREEN " in shown.stdout and "Traceback" not in shown.stderr
