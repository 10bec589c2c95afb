"""Answers files are trusted like sudoers (a file is trusted only as far as its writer is): the attacker is a user who
can write the answers file, or a folder above it, that root applies with `setup --answers`; or who hands root a file
whose `from_env` names one of root's own variables (AWS_SECRET_ACCESS_KEY) to have it written into their `.env`.

Each test runs `python -m hermes_wizard` as root (the caller) and checks the refusal: exit 2, one clear line,
no traceback, the home byte for byte as it was.  Other users are bare uids (chown needs no account).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from scratch_root import scratch_root

from unit.test_answers_file import DEMO, tree, wizard

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="files of other users need root")

MALLORY = 47021  # the attacker: owns what the test gives them
ROOTS_AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY-root-only"
DISCORD = "MTA5ODc2NTQzMjEwOTg3NjU0.GaBcDe.discord-token-of-the-operator-000"
GOOD = "platforms:\n  discord:\n    env: {DISCORD_BOT_TOKEN: {from_env: DISCORD_BOT_TOKEN}}\n"


@pytest.fixture
def spot():
    """A folder of root's, 0755, outside pytest's own (whose folders the checks would walk too), in a place no
    one else may write above it (tests/support/scratch_root.py)."""
    with scratch_root("hw-answers-") as folder:
        yield folder


@pytest.fixture
def home(tmp_path):
    made = tmp_path / "home"
    shutil.copytree(DEMO, made)
    return made


def apply(path: Path, home: Path, *extra: str) -> tuple[int, str]:
    done = wizard("setup", "--answers", str(path), "--home", str(home), *extra,
                  env={"DISCORD_BOT_TOKEN": DISCORD, "AWS_SECRET_ACCESS_KEY": ROOTS_AWS})
    return done.returncode, done.stdout + done.stderr


def refused(path: Path, home: Path, words: str) -> None:
    before = tree(home)
    rc, out = apply(path, home)
    assert rc == 2 and words in out and "nothing was written" in out, out
    assert "Traceback" not in out and tree(home) == before


def test_an_answers_file_of_another_user_is_refused(spot, home):
    path = spot / "answers.yaml"
    path.write_text(GOOD)
    os.chown(path, MALLORY, MALLORY)
    path.chmod(0o600)
    refused(path, home, f"belongs to uid {MALLORY}, not to you (uid 0) or root")


@pytest.mark.parametrize("mode,who", [(0o666, "every user"), (0o620, f"group {MALLORY}")])
def test_an_answers_file_others_may_write_is_refused(spot, home, mode, who):
    path = spot / "answers.yaml"
    path.write_text(GOOD)
    os.chown(path, 0, MALLORY)  # a group Mallory is in (here: a bare gid, nobody can tell who is)
    path.chmod(mode)
    refused(path, home, f"is writable by {who}")


def test_a_file_writable_by_the_callers_private_group_is_applied(spot, home):
    """umask 002 (Ubuntu's default for users) makes 0664 files: the group is the caller's alone."""
    import grp
    import pwd

    if grp.getgrgid(0).gr_mem or any(u.pw_gid == 0 and u.pw_uid != 0 for u in pwd.getpwall()):
        pytest.skip("root's group has other members here")
    path = spot / "answers.yaml"
    path.write_text(GOOD)
    path.chmod(0o664)
    rc, out = apply(path, home, "--dry-run")
    assert rc != 2 and "refused:" not in out and "+DISCORD_BOT_TOKEN=" in out, out


def test_a_folder_of_another_user_above_the_file_is_refused(spot, home):
    """Mallory cannot write root's file, but owns the folder: she can swap it for her own at any time."""
    folder = spot / "mallorys"
    (folder / "deeper").mkdir(parents=True)
    os.chown(folder, MALLORY, MALLORY)
    path = folder / "deeper" / "answers.yaml"
    path.write_text(GOOD)
    path.chmod(0o600)
    refused(path, home, f"{folder} belongs to uid {MALLORY}")


def test_a_folder_anyone_may_write_without_the_sticky_bit_is_refused(spot, home):
    folder = spot / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    path = folder / "answers.yaml"
    path.write_text(GOOD)
    path.chmod(0o600)
    refused(path, home, f"{folder} is writable by every user")


def test_a_link_to_another_users_file_is_refused_as_that_file(spot, home):
    target = spot / "mallorys.yaml"
    target.write_text(GOOD)
    os.chown(target, MALLORY, MALLORY)
    link = spot / "answers.yaml"
    link.symlink_to(target)
    refused(link, home, f"belongs to uid {MALLORY}")


@pytest.mark.parametrize("link_to", ["loop", "dotdot", "dangling"])
def test_root_links_are_followed_as_the_kernel_would(spot, home, link_to):
    """The walk follows links itself (never resolving them first): a loop ends, `..` after a link is the link's
    folder's parent, a link to nothing reads nothing."""
    (spot / "real").mkdir()
    (spot / "real" / "answers.yaml").write_text(GOOD)
    link = spot / "sub" / "answers.yaml"
    link.parent.mkdir()
    link.symlink_to({"loop": "answers.yaml", "dotdot": "../real/answers.yaml", "dangling": "nothing.yaml"}[link_to])
    rc, out = apply(link, home, "--dry-run")
    if link_to == "dotdot":
        assert "refused:" not in out and "+DISCORD_BOT_TOKEN=" in out, out
    else:
        assert rc == 2 and ("too many levels" if link_to == "loop" else "No such file") in out, out


def test_roots_own_file_in_a_sticky_folder_is_applied(home):
    """A folder like /tmp is meant to be (1777, root's; made here: this machine's /tmp may be 0700): others may
    add names there, never replace root's; the file is checked itself."""
    with scratch_root("hw-sticky-", mode=0o1777) as sticky:
        path = sticky / "answers.yaml"
        path.write_text(GOOD)
        rc, out = apply(path, home, "--dry-run")
        assert rc != 2 and "refused:" not in out and "+DISCORD_BOT_TOKEN=" in out, out  # the demo home refuses: 78


# ---------------------------------------------------------------- from_env reads only what it declares


def test_from_env_cannot_name_an_unrelated_variable_of_root(spot, home):
    """Before: root's AWS secret became the owner's DISCORD_BOT_TOKEN in .env."""
    path = spot / "answers.yaml"
    path.write_text("platforms:\n  discord:\n    env: {DISCORD_BOT_TOKEN: {from_env: AWS_SECRET_ACCESS_KEY}}\n")
    refused(path, home, "from_env AWS_SECRET_ACCESS_KEY is not a variable for DISCORD_BOT_TOKEN")
    assert ROOTS_AWS not in (home / ".env").read_text()


def test_the_token_flag_cannot_name_an_unrelated_variable_of_root(home):
    before = tree(home)
    done = wizard("setup", "--home", str(home), "--platform", "discord", "--token-from-env",
                  "AWS_SECRET_ACCESS_KEY", env={"AWS_SECRET_ACCESS_KEY": ROOTS_AWS})
    out = done.stdout + done.stderr
    assert done.returncode == 2 and "is not a variable for DISCORD_BOT_TOKEN" in out, out
    assert tree(home) == before and ROOTS_AWS not in out


def test_the_preview_names_every_variable_it_reads(spot, home):
    path = spot / "answers.yaml"
    path.write_text("platforms:\n  discord:\n    env: {DISCORD_BOT_TOKEN: {from_env: PROD_DISCORD_BOT_TOKEN}}\n")
    done = wizard("setup", "--answers", str(path), "--home", str(home), "--dry-run",
                  env={"PROD_DISCORD_BOT_TOKEN": DISCORD})
    out = done.stdout + done.stderr
    assert "Reads discord's DISCORD_BOT_TOKEN from the environment variable PROD_DISCORD_BOT_TOKEN" in out, out
    assert DISCORD not in out
