"""Root's `undo` never acts on a keyring journal of a home it does not own (the keyring is per user).

The home's owner, a throw-away user, forges the journal of the latest backup set root's own `doctor --fix` left
(they own the set): "this run stored TELEGRAM_BOT_TOKEN in the keyring" (undo would delete root's entry for
that home) or "this run deleted it" (undo would store the owner's token, read from `.env`, in root's
keyring); or leaves such a set "applying", for the roll-back of an interrupted run.  Before, root's undo did
exactly that.  Now: refused whole (exit 1, nothing restored), with the line the owner runs instead —
`sudo -u OWNER hermes-wizard undo --home HOME` — as `secrets migrate` already refuses; the roll-back puts the
files back and leaves the keyring as it is, saying why.  Root's keyring: an in-memory backend chosen explicitly.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from apply_homes import wizard_cli

from hermes_wizard.core import keyring_store
from hermes_wizard.faces.cli import main
from hermes_wizard.write.backups import BACKUP_DIR
from system.test_keyring_secrets import mem_keyring  # noqa: F401  (root's keyring, in memory)
from system.test_root_homes import user_home

OWNERS_TOKEN = "7123456789:AAHownersOWNtokenNEVERinROOTS_0123"
ROOTS_ENTRY = "root's own value for this home's entry"


def _forge(owner, home: Path, journal: list[dict], state: str = "complete") -> None:
    """The owner rewrites the latest set's manifest, with their own rights (the system's Python, as them)."""
    latest = sorted((home / BACKUP_DIR).iterdir())[-1] / "manifest.json"
    script = ("import json, sys; path = sys.argv[1]; data = json.load(open(path)); "
              "data['keyring'] = json.loads(sys.argv[2]); data['state'] = sys.argv[3]; "
              "open(path, 'w').write(json.dumps(data))")
    done = subprocess.run(["setpriv", f"--reuid={owner[1]}", f"--regid={owner[2]}", "--init-groups",
                           "/usr/bin/python3", "-c", script, str(latest), json.dumps(journal), state],
                          capture_output=True, text=True, timeout=30, cwd="/")
    assert done.returncode == 0, done.stderr


@pytest.fixture
def repaired(place, owner):
    """The owner's home (their token in .env), after root's `doctor --fix` left a backup set in it."""
    base, _ = place
    home = user_home(base, owner)
    env = home / ".env"
    env.write_text(env.read_text().replace("TELEGRAM_BOT_TOKEN=", "TELEGRAM_BOT_TOKEN=" + OWNERS_TOKEN + "#"))
    assert wizard_cli("doctor", "--fix", "--yes", "--home", str(home)).returncode == 0
    return home


JOURNALS = {
    "stored (undo deletes root's entry)": [{"action": "store", "variable": "TELEGRAM_BOT_TOKEN", "existed": False}],
    "deleted (undo stores the owner's token)": [{"action": "delete", "variable": "TELEGRAM_BOT_TOKEN"}],
}


@pytest.mark.parametrize("journal", sorted(JOURNALS))
@pytest.mark.parametrize("dry_run", [False, True])
def test_root_undo_refuses_a_keyring_journal_of_a_home_it_does_not_own(repaired, owner, mem_keyring, capsys,  # noqa: F811
                                                                       journal, dry_run):
    home = repaired
    entry = keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN")
    mem_keyring.set_password(*entry, ROOTS_ENTRY)
    _forge(owner, home, JOURNALS[journal])
    files = {name: (home / name).read_bytes() for name in (".env", "config.yaml")}
    sets = sorted(p.name for p in (home / BACKUP_DIR).iterdir())
    code = main(["undo", "--home", str(home), "--dry-run" if dry_run else "--yes"])
    out, err = capsys.readouterr()
    assert code == 1, out + err
    assert f"sudo -u {owner[0]} hermes-wizard undo --home {home}" in err, err
    assert "per user" in err and OWNERS_TOKEN not in out + err
    assert mem_keyring.store == {entry: ROOTS_ENTRY}  # neither deleted nor given the owner's token
    assert {name: (home / name).read_bytes() for name in files} == files  # nothing restored
    assert sorted(p.name for p in (home / BACKUP_DIR).iterdir()) == sets  # no "before undo" set made


def test_root_rolling_back_an_interrupted_run_leaves_the_keyring_as_it_is(repaired, owner, mem_keyring,  # noqa: F811
                                                                          capsys):
    home = repaired
    entry = keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN")
    mem_keyring.set_password(*entry, ROOTS_ENTRY)
    _forge(owner, home, JOURNALS["stored (undo deletes root's entry)"], state="applying")
    code = main(["undo", "--home", str(home), "--yes"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "rolled back" in out and "The OS keyring was left as it is" in out, out
    assert f"sudo -u {owner[0]} hermes-wizard undo --home {home}" in out
    assert mem_keyring.store == {entry: ROOTS_ENTRY}


def test_the_owner_still_undoes_their_own_keyring_journal(place, owner, mem_keyring):  # noqa: F811
    """Not a refusal of keyring journals as such: run by the owner, the same set is undone."""
    from hermes_wizard.write.keyring_apply import not_the_owners

    base, _ = place
    home = user_home(base, owner)
    os.chown(home, 0, 0)  # now root's own home: the journal is root's to act on
    assert not_the_owners(home, JOURNALS["stored (undo deletes root's entry)"]) is None
    os.chown(home, owner[1], owner[2])
    assert owner[0] in not_the_owners(home, JOURNALS["stored (undo deletes root's entry)"])
    assert not_the_owners(home, [{"action": "store", "variable": "not a variable"}]) is None  # nothing acted on
