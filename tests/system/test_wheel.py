"""Installed the way users install it: a built wheel in a fresh venv, far from the source tree.

Builds the wheel once (pip wheel, isolated build), installs it into a new venv and runs the
console script from a working directory that has no access to this checkout: `--version`,
`check`, `explain`, `setup` without a terminal, `setup --answers` and `--save-answers`,
`secrets migrate --dry-run`, the demo, and the TUI to its first screen.  The installed files
must be exactly the source tree's (wizard/ as hermes_wizard/, screens/ as hermes_wizard/screens/,
assets/ as hermes_wizard/_assets/), so a module the packaging forgot fails here, not on a user's
machine.  Last, the same wheel goes into a venv with the real Hermes Agent 0.19.0, and
`hermes wizard` (the plugin) runs from it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.wheel, pytest.mark.xdist_group("wheel")]  # one build, one worker
HERMES = "hermes-agent==0.19.0"
TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"
ANSWERS = """\
platforms:
  telegram:
    enabled: true
    env: {TELEGRAM_BOT_TOKEN: {from_env: TELEGRAM_BOT_TOKEN}}
    allowed_users: ["123456789"]
"""


def _run(cmd, cwd: Path, env: dict, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, **kw)


def _source_copy(to: Path) -> Path:
    """What a clean checkout builds from.  A build in the working tree reuses its build/lib, where a
    developer's earlier builds left stale modules (they once put `wizard/` and `screens/` into this wheel)."""
    for name in ("wizard", "screens", "assets"):
        shutil.copytree(REPO / name, to / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, to / name)
    return to


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path, dict]:
    work = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HERMES_HOME", "VIRTUAL_ENV")}
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work / "dist"),
                  str(_source_copy(work / "src"))], work, env, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next((work / "dist").glob("hermes_wizard-*.whl"))
    venv = work / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], work, env).returncode == 0
    # keyrings.alt: a file keyring chosen explicitly, so `secrets migrate` has a keyring to plan for
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                str(wheel), "keyrings.alt"], work, env, timeout=600)
    assert pip.returncode == 0, pip.stderr[-3000:]
    outside = work / "elsewhere"
    outside.mkdir()
    (work / "tmp").mkdir()  # `demo` leaves its copy for the user to look at: here, not in the machine's /tmp
    return wheel, venv, dict(env, PATH=f"{venv / 'bin'}:{env.get('PATH', '')}", TERM="dumb", TMPDIR=str(work / "tmp"))


def test_the_wheel_carries_the_stylesheet_and_the_demo_home(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert "hermes_wizard/_assets/wizard.tcss" in names
    assert "hermes_wizard/_assets/homes/death-loop/.env" in names
    assert "hermes_wizard/_assets/homes/death-loop/config.yaml" in names
    assert "hermes_wizard/hermes/versions.py" in names and "hermes_wizard/screens/app.py" in names
    # One distinctive import name: nothing generic (`wizard`, `screens`) lands in the venv we join, Hermes's own
    # included, where pip would not notice a collision and uninstalling either would remove shared files.
    top_level = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert top_level == {"hermes_wizard"}, top_level
    assert not [n for n in names if n.startswith(("tests/", "benchmarks/"))]


def test_the_installed_commands_work_without_the_source_tree(installed, tmp_path):
    _, venv, env = installed
    cwd = venv.parent / "elsewhere"
    tool = str(venv / "bin" / "hermes-wizard")
    where = _run([str(venv / "bin" / "python"), "-c", "import hermes_wizard.screens as s; print(s.__file__)"], cwd, env)
    loaded = Path(where.stdout.strip())
    # compared as paths, not strings: a venv beside the checkout (/src/hw-tmp by /src/hw) shares its prefix
    assert loaded.is_relative_to(venv) and not loaded.is_relative_to(REPO / "screens"), loaded
    version = _run([tool, "--version"], cwd, env)
    assert version.returncode == 0 and "models Hermes 0.17.0, 0.18.0, 0.18.1, 0.18.2, 0.19.0" in version.stdout
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
        "from hermes_wizard.core.bundled import example_home\n"
        "from hermes_wizard.screens.app import WizardApp\n"
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


def _files(root: Path, prefix: str = "") -> set[str]:
    return {prefix + str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_installed_files_are_the_source_trees(installed):
    _, venv, env = installed
    where = "import os, hermes_wizard as w; print(os.path.dirname(w.__file__))"
    found = _run([str(venv / "bin" / "python"), "-c", where], venv.parent / "elsewhere", env)
    site = Path(found.stdout.strip()).parent
    installed_files = _files(site / "hermes_wizard", "")
    source = (_files(REPO / "wizard", "") | _files(REPO / "screens", "screens/")
              | _files(REPO / "assets", "_assets/"))
    assert sorted(source - installed_files) == [], "the wheel misses these"
    assert sorted(installed_files - source) == [], "the wheel carries files the source tree does not have"


def test_setup_with_an_answers_file_and_saved_answers_from_the_wheel(installed, tmp_path):
    _, venv, env = installed
    cwd, tool = venv.parent / "elsewhere", str(venv / "bin" / "hermes-wizard")
    answers, saved, home = tmp_path / "answers.yaml", tmp_path / "saved.yaml", tmp_path / "home"
    answers.write_text(ANSWERS)
    env = dict(env, TELEGRAM_BOT_TOKEN=TOKEN)
    done = _run([tool, "setup", "--answers", str(answers), "--home", str(home), "--save-answers", str(saved)],
                cwd, env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Verified: the gateway will start (telegram)." in done.stdout
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert TOKEN not in saved.read_text() and "from_env: TELEGRAM_BOT_TOKEN" in saved.read_text()
    again = _run([tool, "setup", "--answers", str(saved), "--home", str(home), "--detailed-exitcode"],
                 cwd, env, stdin=subprocess.DEVNULL)
    assert again.returncode == 0 and "Nothing to change" in again.stdout, again.stdout + again.stderr


def test_secrets_migrate_dry_run_from_the_wheel(installed, tmp_path):
    _, venv, env = installed
    home = tmp_path / "home"
    home.mkdir()
    (home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_ALLOWED_USERS=12345\n")
    (home / ".env").chmod(0o600)
    before = _files(home)
    env = dict(env, PYTHON_KEYRING_BACKEND="keyrings.alt.file.PlaintextKeyring",
               XDG_DATA_HOME=str(tmp_path / "keyring-data"))
    done = _run([str(venv / "bin" / "hermes-wizard"), "secrets", "migrate", "--to", "keyring", "--dry-run",
                 "--home", str(home)], venv.parent / "elsewhere", env, stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert done.returncode == 0 and "TELEGRAM_BOT_TOKEN" in out and "Traceback" not in out, out
    assert TOKEN not in out
    assert _files(home) == before and f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert not (tmp_path / "keyring-data").exists()  # a dry run stores nothing


@pytest.fixture(scope="module")
def hermes_with_the_wheel(installed, tmp_path_factory) -> Path:
    """A venv with the real Hermes Agent 0.19.0 and this wheel installed into it, as a user adds the plugin."""
    wheel, _, env = installed
    work = tmp_path_factory.mktemp("hermes-wheel")
    venv = work / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], work, env).returncode == 0
    pip = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                HERMES, str(wheel)], work, env, timeout=900)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv


@pytest.mark.oracle
def test_hermes_wizard_runs_from_the_wheel_inside_hermes(hermes_with_the_wheel, tmp_path):
    import oracle

    venv = hermes_with_the_wheel
    home = tmp_path / "hermes-home"
    shutil.copytree(REPO / "assets" / "homes" / "death-loop", home)
    (home / ".env").chmod(0o600)
    env = oracle.clean_env(tmp_path / "scratch", hermes_home=home)
    hermes = str(venv / "bin" / "hermes")
    enabled = _run([hermes, "plugins", "enable", "wizard"], tmp_path, env, stdin=subprocess.DEVNULL)
    assert enabled.returncode == 0, enabled.stdout + enabled.stderr
    shown = _run([hermes, "wizard", "--help"], tmp_path, env, stdin=subprocess.DEVNULL)
    assert shown.returncode == 0 and "  setup " in shown.stdout, shown.stdout + shown.stderr
    checked = _run([hermes, "wizard", "check", "--format", "json"], tmp_path, env, stdin=subprocess.DEVNULL)
    assert checked.returncode == 78, checked.stdout + checked.stderr
    report = json.loads(checked.stdout)
    assert report["home"] == str(home) and report["refusal"]["platform"] == "whatsapp"
    assert report["hermes"]["version"] == "0.19.0"
