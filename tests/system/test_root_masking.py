"""Root shows none of a user's credentials, whatever their names (ARCHITECTURE.md, "Contracts": secrets, from the
attacker's side).

The owner's .env holds every credential of every model's catalog (tests/unit/test_credential_masking.py walks
the same catalog as ourselves); root runs check, doctor and undo on that home, and greps what it was shown.
"""

from __future__ import annotations

import os
import subprocess

from unit.test_credential_masking import IDENTIFIERS, _catalog_credentials, _walk_values

from system.test_root_homes import VENV_WIZARD


def test_root_shows_none_of_a_users_catalog_credentials(place, owner):
    """Secrets never in clear, as root on a user's home: every credential of the catalog planted in the owner's .env
    (theirs, mode 0644 so that doctor backs it up) is shown by none of root's check, doctor preview and repair, or undo
    preview (whose diff then shows every line changed)."""
    base, _ = place
    secrets = [name for name in _catalog_credentials() if name not in IDENTIFIERS]
    first, pieces = _walk_values(secrets, "R")
    second, more = _walk_values(secrets, "S")
    home = base / "home"
    home.mkdir()
    (home / ".env").write_text("".join(f"{name}={value}\n" for name, value in first.items()))
    for path in (home, home / ".env"):
        os.chown(path, owner[1], owner[2])
    (home / ".env").chmod(0o644)
    shown = []
    for argv in (["check"], ["check", "--format", "json"], ["doctor", "--dry-run"], ["doctor", "--fix", "--yes"]):
        done = subprocess.run([str(VENV_WIZARD), *argv, "--home", str(home)], capture_output=True, text=True,
                              timeout=120)
        shown.append((argv, done.stdout + done.stderr))
    (home / ".env").write_text("".join(f"{name}={value}\n" for name, value in second.items()))
    done = subprocess.run([str(VENV_WIZARD), "undo", "--dry-run", "--home", str(home)], capture_output=True, text=True,
                          timeout=120)
    shown.append((["undo", "--dry-run"], done.stdout + done.stderr))
    assert "(secret changed)" in shown[-1][1], shown[-1][1]
    for argv, text in shown:
        assert not [piece for piece in pieces + more if piece in text], argv
