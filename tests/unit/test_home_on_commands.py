"""The commands a report prints name the home judged, as one shell word, whenever a command run as printed would
find another (wizard/judge/commands.py); tests/unit/test_printed_commands.py runs them."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import shutil
from pathlib import Path

import pytest

from hermes_wizard.faces.entry import main
from hermes_wizard.judge.commands import home_words, naming_the_home

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


def _fixes(home: Path, monkeypatch, environ_home: Path, *extra: str) -> list[str]:
    monkeypatch.setenv("HOME", str(environ_home))
    monkeypatch.delenv("HERMES_HOME", raising=False)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["check", "--format", "json", "--home", str(home), *extra])
    return [f["fix"] for f in json.loads(out.getvalue())["findings"] if "hermes-wizard " in f["fix"]]


@pytest.mark.parametrize("name", ["other home", "it's; touch PWNED; '", "$(touch PWNED)", "-x --fix"])
def test_a_hostile_home_is_one_argument_of_every_command(tmp_path, monkeypatch, name):
    home = tmp_path / name
    shutil.copytree(DEMO, home)
    fixes = _fixes(home, monkeypatch, tmp_path / "user")
    assert fixes, "the demo home's findings name our commands"
    for fix in fixes:
        command = fix[fix.index("hermes-wizard "):]
        words = shlex.split(command)
        assert words[:4] == ["hermes-wizard", "doctor", "--home", str(home)], (fix, words)


def test_the_home_a_command_finds_by_itself_is_not_named(tmp_path, monkeypatch):
    user = tmp_path / "user"
    shutil.copytree(DEMO, user / ".hermes")
    assert all("--home" not in fix for fix in _fixes(user / ".hermes", monkeypatch, user))


def test_a_profile_is_named_with_its_root(tmp_path):
    root = tmp_path / "root"
    words = home_words(root / "profiles" / "work", "work", tmp_path / "elsewhere")
    assert shlex.split(naming_the_home("run hermes-wizard doctor --fix", words)) == [
        "run", "hermes-wizard", "doctor", "--home", str(root), "--profile", "work", "--fix"]
    assert home_words(root, "default", root) == "" and home_words(root, "default", None) == ""
    # a text that already names a home (the service's, HW403) keeps it
    assert naming_the_home("hermes-wizard doctor --home /srv/h", words) == "hermes-wizard doctor --home /srv/h"
    # a word that only contains ours is not ours
    assert naming_the_home("my-hermes-wizard doctor", words) == "my-hermes-wizard doctor"
