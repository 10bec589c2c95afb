"""Import hygiene: `wizard/` (engine + CLI) never imports the heavy or optional UI libraries.

Contract (ARCHITECTURE.md, "Layers"): importing `wizard` never imports textual, questionary, keyring or ruamel;
`check` therefore starts about as fast as `import yaml, dotenv`. rich and prompt_toolkit come in
with textual/questionary, so they are banned too. UI faces import them lazily, inside functions.

Each check runs in a fresh interpreter, so nothing this pytest process imported can hide a leak.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO_HOME = REPO / "assets" / "homes" / "death-loop"
FORBIDDEN = ("textual", "questionary", "keyring", "ruamel", "prompt_toolkit", "rich")


def forbidden(names) -> list[str]:
    return sorted({n for n in names if n.split(".")[0] in FORBIDDEN})


def run_python(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    """Run this interpreter with a clean, predictable environment (no $HERMES_HOME, HOME=tmp)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON"))}
    env.update(HOME=str(tmp_path / "userhome"), PYTHONPATH=str(REPO), NO_COLOR="1", TERM="dumb")
    (tmp_path / "userhome").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)


def demo_copy(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(DEMO_HOME, home, symlinks=True)
    (home / ".env").chmod(0o600)
    return home


def importtime_modules(stderr: str) -> list[str]:
    """Module names from `-X importtime` lines: 'import time: self | cumulative | name'."""
    names = []
    for line in stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.append(name)
    return names


@pytest.mark.parametrize("home_kind", ["missing", "demo"])
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_check_cli_imports_no_ui_libraries(tmp_path, home_kind, fmt):
    home = tmp_path / "none" if home_kind == "missing" else demo_copy(tmp_path)
    proc = run_python(["-X", "importtime", "-m", "hermes_wizard", "check", "--home", str(home),
                       "--format", fmt], tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    loaded = importtime_modules(proc.stderr)
    assert any(n.split(".")[0] == "hermes_wizard" for n in loaded), (
        "no hermes_wizard module in -X importtime output; did the command run at all?\n"
        + proc.stderr[-2000:])
    assert forbidden(loaded) == [], f"`check --format {fmt}` imported {forbidden(loaded)}"


# Runs hermes_wizard.faces.cli.main in-process, then reports sys.modules on a side file (stdout is the CLI's).
MAIN_SNIPPET = """
import json, sys
out, argv = sys.argv[1], sys.argv[2:]
try:
    from hermes_wizard.faces.cli import main
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
finally:
    with open(out, "w") as f:
        json.dump(sorted(sys.modules), f)
"""


@pytest.mark.parametrize("argv", [
    ["check", "--home", "{demo}", "--format", "json"],
    ["check", "--home", "{demo}"],
    ["check", "--all-profiles", "--home", "{demo}", "--format", "json"],
    ["check", "--home", "{missing}"],
    ["--help"],
], ids=["check-json", "check-text", "all-profiles", "missing-home", "help"])
def test_cli_main_leaves_ui_libraries_unloaded(tmp_path, argv):
    demo = demo_copy(tmp_path)
    argv = [a.format(demo=demo, missing=tmp_path / "none") for a in argv]
    out = tmp_path / "modules.json"
    proc = run_python(["-c", MAIN_SNIPPET, str(out), *argv], tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    modules = json.loads(out.read_text())
    assert "hermes_wizard.faces.cli" in modules
    assert forbidden(modules) == [], f"{argv} loaded {forbidden(modules)}"


def test_import_wizard_and_cli(tmp_path):
    proc = run_python(["-c", "import sys, wizard, hermes_wizard.faces.cli; print('\\n'.join(sys.modules))"],
                      tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert forbidden(proc.stdout.split()) == []


# Blocks the forbidden packages (even if installed), imports every module under wizard/, and
# reports what was attempted: proves wizard/ imports without them, and never reaches for them.
WALK_SNIPPET = """
import importlib, importlib.abc, json, pkgutil, sys, traceback
FORBIDDEN = FORBIDDEN_NAMES
attempts, failures = [], {}

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in FORBIDDEN:
            attempts.append((name, "".join(traceback.format_stack(limit=8)[:-1])))
            raise ImportError(f"{name} is blocked by test_import_hygiene")
        return None

sys.meta_path.insert(0, Block())
import hermes_wizard
names = ["hermes_wizard"]
def onerror(name):
    failures[name] = traceback.format_exc()
# hermes_wizard's path is the repo's wizard/ folder: the walk never reaches hermes_wizard.screens (UI only).
for info in pkgutil.walk_packages(hermes_wizard.__path__, "hermes_wizard.", onerror=onerror):
    names.append(info.name)
for name in names:
    if name.rsplit(".", 1)[-1] == "__main__":
        continue  # importing it would run the CLI
    try:
        importlib.import_module(name)
    except BaseException:
        failures[name] = traceback.format_exc()
print(json.dumps({"names": names, "attempts": attempts, "failures": failures,
                  "loaded": [m for m in sys.modules if m.split(".")[0] in FORBIDDEN]}))
""".replace("FORBIDDEN_NAMES", repr(FORBIDDEN))


def test_every_wizard_module_imports_without_ui_libraries(tmp_path):
    proc = run_python(["-c", WALK_SNIPPET], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "hermes_wizard.faces.cli" in report["names"], report["names"]
    msgs = [f"import of {mod!r} from:\n{stack}" for mod, stack in report["attempts"]]
    assert report["attempts"] == [], "wizard/ reaches for UI libraries:\n" + "\n".join(msgs)
    assert report["failures"] == {}, "modules failing to import:\n" + "\n".join(
        f"--- {k}\n{v}" for k, v in report["failures"].items())
    assert report["loaded"] == []
