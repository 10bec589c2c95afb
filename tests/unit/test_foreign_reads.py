"""Root judging another user's home judges it for that user, who runs its gateway (wizard/core/smallfile.py
`reading_for`): a `.env` or `config.yaml` the owner linked to a file only root may read "cannot be read", as
Hermes running as the owner finds it.  Before, root read the file, judged by its values (a wrong verdict) and
showed what it held (a leak).  Files the owner can read are read as always."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from hermes_wizard.faces.cli import main

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="judging another user's home needs root")

OWNER = 47011  # a bare uid: chown needs no account
ROOTS_ENV = ("WEIXIN_ACCOUNT_ID=rootsbot@im.bot\nWEIXIN_TOKEN=ilink-root-token-123456\n"
             "WEIXIN_DM_POLICY=allowlist\nWEIXIN_ALLOWED_USERS=root-private-id-777\n")


@pytest.fixture
def place(everyone_scratch):
    """A folder every user may enter (pytest's own tmp is root's 0700, /tmp may be too), removed afterwards."""
    return everyone_scratch


def users_home(place: Path, demo: Path) -> Path:
    home = place / "home"
    shutil.copytree(demo, home, symlinks=True)
    for path in [home, *home.rglob("*")]:
        os.lchown(path, OWNER, OWNER)
    return home


def roots_file(place: Path, text: str, folder_mode: int = 0o700, file_mode: int = 0o600) -> Path:
    folder = place / "root-only"
    folder.mkdir(exist_ok=True)
    target = folder / "secret.env"
    target.write_text(text)
    target.chmod(file_mode)
    folder.chmod(folder_mode)
    return target


def link(home: Path, name: str, target: Path) -> None:
    (home / name).unlink()
    (home / name).symlink_to(target)
    os.lchown(home / name, OWNER, OWNER)


def check(capsys, home: Path, *extra: str) -> tuple[int, str]:
    code = main(["check", "--home", str(home), *extra])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("folder_mode,file_mode,why", [
    (0o700, 0o644, "may not enter"),  # the folder is root's alone: what it holds is not even described
    (0o755, 0o600, "may not read"),
])
def test_a_users_env_linked_to_a_root_only_file_cannot_be_read(capsys, place, demo, folder_mode, file_mode, why):
    home = users_home(place, demo)
    link(home, ".env", roots_file(place, ROOTS_ENV, folder_mode, file_mode))
    code, text = check(capsys, home)
    assert code == 78 and "HW010" in text
    code, out = check(capsys, home, "--format", "json")
    assert f"uid {OWNER}, the home's owner, {why}" in json.loads(out)["refusal"]["reason"]
    for said in (text, out):
        assert "rootsbot" not in said and "root-private-id-777" not in said and "allowlist (1 user)" not in said
    assert json.loads(out)["refusal"]["reason"].startswith("Hermes cannot read .env")


def test_a_users_config_linked_to_a_root_only_file_is_not_judged_by_it(capsys, place, demo):
    home = users_home(place, demo)
    link(home, "config.yaml", roots_file(place, "platforms:\n  weixin:\n    dm_policy: allowlist\n"
                                                "    allowed_users: [root-private-id-777]\n"))
    code, text = check(capsys, home)
    code, out = check(capsys, home, "--format", "json")
    assert "root-private-id-777" not in text + out
    assert any(f.get("code") == "HW020" and f"uid {OWNER}, the home's owner, may not enter" in f["message"]
               for f in json.loads(out)["findings"])


@pytest.mark.parametrize("owned_by_user", [True, False])
def test_a_file_the_owner_can_read_is_read_as_before(capsys, place, demo, owned_by_user):
    """Their own file elsewhere, or root's world-readable one in a folder anyone may enter (a shared config)."""
    home = users_home(place, demo)
    target = roots_file(place, ROOTS_ENV, folder_mode=0o755, file_mode=0o600 if owned_by_user else 0o644)
    if owned_by_user:
        os.chown(target, OWNER, OWNER)
    link(home, ".env", target)
    code, text = check(capsys, home)
    assert "HW010" not in text and "weixin — allowlist (1 user)" in text
