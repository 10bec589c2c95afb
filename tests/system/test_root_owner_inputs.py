"""No exit 70 on anything a home's owner can write: root's `access` and `doctor` on a throw-away user's home,
the user writing the hostile input (or, mid-run, making the change) with their own rights.

* A pairing file nested 100,000 deep (before: `access` died with RecursionError, exit 70).  Hermes itself, asked
  as the owner, raises on it for that message: `access` says so, exit 1, and the overview still answers.
* `config.yaml` swapped for a link while root's `doctor --fix` plans — to a root-only file, to itself (a loop),
  to a folder, to a FIFO (before: ApplyError escaped, exit 70): one sentence, exit 1, nothing of root's read
  or changed.  To nowhere: Hermes then reads no config.yaml, and the repair plans without it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import as_owner
import pytest
from apply_homes import build

import hermes_wizard.cases.fixing as doctor_case
from hermes_wizard.faces.cli import main

TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHownerInputsNotReal_0123456789\n"


def as_root(*args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd="/")


def by_owner(owner, *argv: str) -> None:
    """`argv` run as the owner: no capability, their own rights only."""
    done = subprocess.run(["setpriv", f"--reuid={owner[1]}", f"--regid={owner[2]}", "--init-groups", *argv],
                          capture_output=True, text=True, timeout=30, cwd="/")
    assert done.returncode == 0, done.stderr


@pytest.mark.oracle
def test_root_access_on_a_pairing_store_nested_without_end(place, owner, tmp_path):
    base, _ = place
    home = base / "home"
    (home / "platforms" / "pairing").mkdir(parents=True)
    (home / ".env").write_text(TOKEN)
    for path in [home, *home.rglob("*")]:
        os.chown(path, owner[1], owner[2])
    script = ("import sys; n = 100000; open(sys.argv[1], 'w').write('{\"555\": ' + '[' * n + ']' * n + '}')")
    by_owner(owner, sys.executable, "-c", script, str(home / "platforms" / "pairing" / "telegram-approved.json"))
    python = as_owner.owner_python(as_owner.oracle_site(), base)
    if isinstance(python, str):
        pytest.skip(python)
    told = as_owner.authz_as(home, [{"platform": "telegram", "user_id": "555", "chat_type": "dm", "chat_id": "555"}],
                             base, python)
    assert told["results"][0].startswith("error: RecursionError"), told
    asked = as_root("access", "--home", str(home), "telegram", "555", "--format", "json")
    assert asked.returncode == 1 and json.loads(asked.stdout)["rule"] == "error", asked.stdout + asked.stderr
    said = as_root("access", "--home", str(home), "telegram", "555")
    assert said.returncode == 1 and "RecursionError" in said.stdout and "internal error" not in said.stderr
    overview = as_root("access", "--home", str(home))
    assert overview.returncode == 0, overview.stdout + overview.stderr


def _swap_to(kind: str, base: Path, decoy: Path) -> list[str]:
    """The owner's shell command that puts `config.yaml` back as a link of this `kind`."""
    target = {"root's file": str(decoy / "shadow"), "a loop": "config.yaml", "a folder": str(decoy),
              "a FIFO": str(base / "owners-fifo"), "nowhere": str(base / "nothing-here")}[kind]
    make = f"mkfifo {base / 'owners-fifo'} && " if kind == "a FIFO" else ""
    return ["sh", "-c", f"cd {{home}} && {make}rm -f config.yaml && ln -s {target} config.yaml"]


@pytest.mark.parametrize("when", ["evaluate", "plan_repairs"])
@pytest.mark.parametrize("kind", ["root's file", "a loop", "a folder", "a FIFO", "nowhere"])
def test_root_doctor_when_the_owner_swaps_config_for_a_link_mid_run(place, owner, monkeypatch, capsys, when, kind):
    base, decoy = place
    home = build(base / "home", "two-files")
    for path in [home, *home.iterdir()]:
        os.chown(path, owner[1], owner[2])
    base.chmod(0o777 | 0o1000)  # the owner may make their FIFO beside the home (a sticky folder, as /tmp)
    decoy_before = {p.name: p.read_bytes() for p in decoy.iterdir()}
    command = [part.replace("{home}", str(home)) for part in _swap_to(kind, base, decoy)]
    real = getattr(doctor_case, when)

    def then_swapped(*args, **kwargs):
        result = real(*args, **kwargs)
        by_owner(owner, *command)  # the owner, mid-run, with their own rights
        return result

    monkeypatch.setattr(doctor_case, when, then_swapped)
    code = main(["doctor", "--fix", "--yes", "--home", str(home)])
    out, err = capsys.readouterr()
    assert "internal error" not in err, err
    if kind == "nowhere":  # Hermes reads no config.yaml then, and neither does the repair: .env alone is fixed
        assert code in (0, 1), out + err
    else:
        assert code == 1 and "config.yaml" in err, out + err
    assert "SECRET-HASH" not in out + err
    assert {p.name: p.read_bytes() for p in decoy.iterdir()} == decoy_before
    assert os.path.islink(home / "config.yaml")  # left as the owner made it: root wrote nothing through it
