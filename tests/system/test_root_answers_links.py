"""An answers file root applies is judged along the path root was given, links included, never only where they
lead (wizard/faces/trusted_file.py).

The attacker is a throw-away user who cannot write any answers file root trusts, but owns a folder or a link on
the way to one: root applies `~mallory/answers.yaml`, which Mallory links to the fleet's root-owned file of her
choice (another home's, one that opens a platform), or her link sits in a sticky folder (as /tmp).  Before,
links were resolved first and only the resolved path was judged: the file was applied.  Now each is refused,
exit 2, nothing written; root's own links to root's own files still work.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from unit.test_answers_file import DEMO, tree, wizard

OPENS = ("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: TELEGRAM_BOT_TOKEN}}\n"
         "    dm_policy: open\n    allow_all: true\n")
TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"


def by_owner(owner, *argv: str) -> None:
    done = subprocess.run(["setpriv", f"--reuid={owner[1]}", f"--regid={owner[2]}", "--init-groups", *argv],
                          capture_output=True, text=True, timeout=30, cwd="/")
    assert done.returncode == 0, done.stderr


@pytest.fixture
def fleet(place, owner):
    """(root's answers file in a root-only folder chain, the owner's own folder, a sticky folder, a home)."""
    base, _ = place
    fleet = base / "etc" / "hermes-fleet"
    fleet.mkdir(parents=True)
    answers = fleet / "prod-open.yaml"
    answers.write_text(OPENS)
    answers.chmod(0o644)
    theirs = base / "home-of-owner"
    theirs.mkdir()
    os.chown(theirs, owner[1], owner[2])
    sticky = base / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    home = base / "hermes"
    shutil.copytree(DEMO, home)
    return answers, theirs, sticky, home


def applied(path: Path, home: Path) -> tuple[int, str]:
    done = wizard("setup", "--answers", str(path), "--home", str(home), env={"TELEGRAM_BOT_TOKEN": TOKEN})
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("where", ["in their own folder", "in a sticky folder"])
def test_an_answers_file_reached_through_the_owners_link_is_refused(fleet, owner, where):
    answers, theirs, sticky, home = fleet
    link = (theirs if where == "in their own folder" else sticky) / "answers.yaml"
    by_owner(owner, "ln", "-s", str(answers), str(link))
    before = tree(home)
    code, said = applied(link, home)
    assert code == 2 and "refused:" in said and "nothing was written" in said, said
    assert (f"{theirs} belongs to uid {owner[1]}" if where == "in their own folder"
            else f"{link} is a symbolic link of uid {owner[1]}") in said, said
    assert tree(home) == before and TOKEN not in said


def test_roots_link_whose_target_runs_through_the_owners_folder_is_refused(fleet, owner):
    answers, theirs, _, home = fleet
    by_owner(owner, "ln", "-s", str(answers.parent), str(theirs / "fleet"))
    link = answers.parent.parent / "via-owner.yaml"
    link.symlink_to(theirs / "fleet" / answers.name)  # root's link, but the way runs through Mallory's folder
    code, said = applied(link, home)
    assert code == 2 and f"{theirs} belongs to uid {owner[1]}" in said, said


def test_roots_own_link_to_roots_own_file_is_applied(fleet):
    answers, _, _, home = fleet
    link = answers.parent / "current.yaml"
    link.symlink_to(answers.name)  # relative, in the same root-owned folder
    code, said = applied(link, home)
    assert "refused:" not in said and code in (0, 1, 78), said
