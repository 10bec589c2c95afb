"""The pre-start gate's own entry: its few flags read without argparse, everything else through the full
command line — the same verdicts and exit codes either way, and fewer imports before every start."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_wizard.faces.cli import main
from hermes_wizard.faces.entry import main as entry
from hermes_wizard.faces.gate import fast_args

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


@pytest.mark.parametrize("argv,expected", [
    (["--gate", "--home", "/h"], {"home": "/h"}),
    (["--gate", "--home=/h", "--profile", "p"], {"home": "/h", "profile": "p"}),
    (["--home", "/h", "--gate", "--hermes-python", "/v/bin/python"], {"hermes_python": "/v/bin/python"}),
    (["--gate", "--target", "0.19"], {"target": "0.19"}),
    (["--gate", "--hermes-version", "0.20.0"], {"hermes_version": "0.20.0"}),
])
def test_the_gates_flags_are_read_directly(argv, expected):
    args = fast_args(argv)
    assert args is not None and args.gate
    for key, value in expected.items():
        assert getattr(args, key) == value


@pytest.mark.parametrize("argv", [
    ["--gate", "--format", "json"],  # not a gate flag: the full parser decides
    ["--gate", "--home"],  # a value is missing
    ["--gate", "--home", "/a", "--home", "/b"],  # repeated
    ["--gate", "--target", "0.20"],  # not modelled: argparse says so (exit 2)
    ["--gate", "--target", "0.19", "--hermes-version", "0.19.0"],  # mutually exclusive
    ["--gate", "-h"],
])
def test_anything_else_goes_through_the_full_command_line(argv):
    assert fast_args(argv) is None


def test_same_verdict_and_exit_code_as_the_full_parser(tmp_path, capsys):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    assert entry(["check", "--gate", "--home", str(home)]) == 78  # the gate's own entry
    fast_err = capsys.readouterr().err
    assert main(["check", "--gate", "--home", str(home)]) == 78  # the full command line
    assert capsys.readouterr().err == fast_err
    with pytest.raises(SystemExit) as exited:
        entry(["check", "--gate", "--home", str(home), "--target", "0.20"])
    assert exited.value.code == 2


def modules_loaded(tmp_path, *flags: str) -> tuple[str, set[str]]:
    """`check FLAGS --home <demo copy>` in a fresh interpreter: (its stdout, every module it had loaded)."""
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    # The script's own entry minus its last step (os._exit, which would leave no moment to look).
    probe = ("import sys\nfrom hermes_wizard.faces.entry import main\n"
             "main(['check', *sys.argv[2:], '--home', sys.argv[1]])\n"
             "print('MODULES ' + ' '.join(sorted(sys.modules)), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe, str(home), *flags], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[2])
    listed = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    return done.stdout, set(listed[-1].split()[1:]) if listed else set()


def test_the_gate_imports_no_argparse_and_no_check_registry(tmp_path):
    _, loaded = modules_loaded(tmp_path, "--gate")
    assert "hermes_wizard.hermes.loader.gate" in loaded  # it did judge
    assert not loaded & {"argparse", "hermes_wizard.faces.cli", "hermes_wizard.core.kinds",
                         "hermes_wizard.faces.contract",  # the error contract: only a failed flush needs it
                         "hermes_wizard.judge.checks", "hermes_wizard.judge.engine", "subprocess", "textual",
                         "dotenv.main", "logging", "shutil"}  # shutil: wizard/core/pathsearch.py
    # The demo has run (gateway_state.json, a starts log): how earlier runs went never decides a start, and
    # reading that history would load `json` before every start.
    assert "json" not in loaded


def test_the_gates_own_messages_are_escaped(tmp_path, capsys):
    """The gate's entry writes outside the guarded streams: a hostile home path is still shown escaped."""
    home = tmp_path / "home\x1b]52;c;aGk=\x07"
    assert entry(["check", "--gate", "--home", str(home)]) == 0  # no such home: never an obstacle
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err


# ---- `check` itself: the same reader, the same answers as the full parser ------------------------------------

@pytest.mark.parametrize("extra", [
    [], ["--format", "json"], ["--format=json", "--inherit-env"], ["--plain", "--target", "0.18.2"],
    ["--hermes-version", "0.17.0"], ["--all-profiles"], ["--profile", "nosuch"],
])
def test_check_answers_alike_through_either_reader(tmp_path, capsys, extra):
    from hermes_wizard.faces.fastargs import check_args

    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    argv = ["check", "--home", str(home), *extra]
    assert check_args(argv[1:]) is not None  # the entry does read these itself
    fast_code = entry(argv)
    fast = capsys.readouterr()
    full_code = main(argv)
    full = capsys.readouterr()
    assert (fast_code, fast.out, fast.err) == (full_code, full.out, full.err)


@pytest.mark.parametrize("argv", [
    ["--hom", "/h"],  # an abbreviation: argparse decides
    ["--format", "yaml"],  # not a choice: argparse says so
    ["--profile", "p", "--all-profiles"],  # mutually exclusive
    ["--home", "-x"],  # a value that looks like a flag
    ["--plain=yes"],  # a switch with a value
    ["stray"],  # a positional word
    ["--help"],
])
def test_checks_unusual_spellings_go_to_the_full_parser(argv):
    from hermes_wizard.faces.fastargs import check_args

    assert check_args(argv) is None


def test_check_imports_no_argparse(tmp_path):
    out, loaded = modules_loaded(tmp_path, "--format", "json")
    assert '"verdict"' in out and "hermes_wizard.judge.engine" in loaded  # it did judge
    assert not loaded & {"argparse", "gettext", "hermes_wizard.hermes.v0_18.model", "subprocess", "textual"}
    # Nor what only other commands, other formats or the full parser use (each costs the check its import);
    # python-dotenv's parser comes without its package's `dotenv.main` (logging, tempfile: wizard/core/dotenv_parts.py).
    # `dataclasses` (and `inspect` with it) is loaded: the values are stdlib frozen dataclasses (bench_check.py
    # measures what that costs).
    assert not loaded & {"dotenv.main", "logging", "importlib.metadata", "hermes_wizard.plan", "hermes_wizard.write",
                         "hermes_wizard.faces.doctor", "hermes_wizard.judge.report", "hermes_wizard.hermes.verify",
                         "hermes_wizard.service.systemd", "hermes_wizard.service.loop", "hermes_wizard.core.homefs",
                         "shutil"}  # `which` without its zlib, bz2, lzma: wizard/core/pathsearch.py
    # The keyring source's rules (a class, a module): only a config.yaml with `secrets:` needs them.
    assert "hermes_wizard.hermes.loader.secret_sources" not in loaded
