"""Root asking `access` about a home it does not own reads the pairing store as the owner could.

The owner links their pairing store to a root-only file that lists them as approved: the real gateway
(running as the owner) cannot read it, so it would not admit them; root's `access` must say the same,
and must never print what the root-only file holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

TOKEN = "TELEGRAM_BOT_TOKEN=7123456789:AAHdemoTokenNotReal_0123\n"


def test_root_reads_the_pairing_store_as_the_owner(owner, place):
    base, decoy = place
    _, uid, gid = owner
    marker = "ROOT-ONLY-" + uuid.uuid4().hex[:8]
    secret = decoy / "approved.json"
    secret.write_text(json.dumps({"5": {"user_name": marker}}))
    secret.chmod(0o600)  # root's
    home = base / "home"
    (home / "platforms" / "pairing").mkdir(parents=True)
    (home / ".env").write_text(TOKEN)
    (home / "platforms" / "pairing" / "telegram-approved.json").symlink_to(secret)
    for path in [home, *home.rglob("*")]:
        os.lchown(path, uid, gid)
    os.chmod(home, 0o755)
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    one = subprocess.run([sys.executable, "-m", "hermes_wizard", "access", "--home", str(home), "telegram", "5",
                          "--format", "json"], capture_output=True, text=True, timeout=60, env=env)
    assert one.returncode == 1, one.stdout + one.stderr
    assert json.loads(one.stdout)["rule"] == "no-allowlist"
    overview = subprocess.run([sys.executable, "-m", "hermes_wizard", "access", "--home", str(home)],
                              capture_output=True, text=True, timeout=60, env=env)
    assert overview.returncode == 0 and marker not in overview.stdout + overview.stderr
    assert "paired:" not in overview.stdout
    assert Path(secret).read_text() == json.dumps({"5": {"user_name": marker}})
