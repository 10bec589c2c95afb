"""Root judges a user's home as that user would see it: what the owner cannot read, Hermes (running as the
owner) cannot read, so root's `check` and gate must not read it either (wizard/core/owner_access.py).

Each case makes one file of a throw-away user's home readable or not *to that user* — their own file at
mode 000, 0200 or 0040 (the owner class decides: the group bits never apply to the owner), root's file in a
group the owner is not in, or in a supplementary group the owner is in, or one a POSIX ACL lets the owner
read — and compares four verdicts on it:

* the real Hermes 0.19.0 (`hermes gateway run`, stopped after its start-up check) run as the owner, confined
  as `--verify` runs it (tests/support/as_owner.py): the truth;
* root's `check` and root's `check --gate`;
* the owner's own `check` and `check --gate` (no capability at all).

Hermes's own behaviour, pinned here first: an unreadable `.env` crashes the start (python-dotenv's open raises
PermissionError out of hermes_cli/env_loader.py); an unreadable `config.yaml` or `gateway.json` is logged and
ignored (gateway/config.py catches it), so the gateway starts from `.env` alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import as_owner
import oracle
import pytest
from scratch_root import scratch_root

pytestmark = [pytest.mark.oracle]

TELEGRAM = "TELEGRAM_BOT_TOKEN=7123456789:AAHrootReadsAsOwner_0123456789\nTELEGRAM_ALLOWED_USERS=123456789\n"
WEIXIN = "WEIXIN_ACCOUNT_ID=b0f5c1d2e3a4@im.bot\nWEIXIN_TOKEN=demo-ilink-token-0000000000000000\n"
YAML_TELEGRAM = "platforms:\n  telegram:\n    enabled: true\n"
YAML_WEIXIN_OPEN = YAML_TELEGRAM + "  weixin:\n    extra:\n      dm_policy: open\n"
GATEWAY_JSON_OPEN = json.dumps({"platforms": {"weixin": {"enabled": True, "extra": {"dm_policy": "open"}}}})
# the file made (un)readable -> (what the home holds, the verdict when the owner can read it, when not)
FILES = {
    ".env": ({".env": TELEGRAM + WEIXIN, "config.yaml": YAML_TELEGRAM}, "starts", "crashes"),
    "config.yaml": ({".env": TELEGRAM + WEIXIN, "config.yaml": YAML_WEIXIN_OPEN}, "refuses", "starts"),
    "gateway.json": ({".env": TELEGRAM + WEIXIN, "config.yaml": YAML_TELEGRAM, "gateway.json": GATEWAY_JSON_OPEN},
                     "refuses", "starts"),
}
# how -> whether the owner may read the file
HOWS = {"own-000": False, "own-200": False, "own-040": False, "root-group": False, "their-group": True,
        "acl": True}
FAST = {(".env", "own-000"), ("config.yaml", "their-group"), ("gateway.json", "own-200"), (".env", "acl")}


@pytest.fixture(scope="module")
def scratch():
    with scratch_root("hw-owner-") as folder:
        yield folder


@pytest.fixture(scope="module")
def pythons(scratch):
    """(a Python running the real Hermes 0.19.0, one running hermes-wizard), both runnable by any user."""
    oracle.require_oracle()
    made = [as_owner.owner_python(as_owner.oracle_site(), scratch), as_owner.owner_python(as_owner.WIZARD_SITE,
                                                                                            scratch)]
    for python in made:
        if isinstance(python, str):
            pytest.skip(python)
    return made


@pytest.fixture
def their_group(owner):
    """A supplementary group the owner is in (not their primary one)."""
    name = "hwg" + uuid.uuid4().hex[:8]
    subprocess.run(["groupadd", name], check=True, capture_output=True)
    try:
        subprocess.run(["usermod", "-aG", name, owner[0]], check=True, capture_output=True)
        import grp

        yield grp.getgrnam(name).gr_gid
    finally:
        subprocess.run(["groupdel", name], capture_output=True)


def acl_letting_read(uid: int) -> bytes:
    """A POSIX access ACL (the kernel's xattr form): owner rw, user `uid` r, group none, mask r, others none."""
    def entry(tag: int, perm: int, ident: int = 0xFFFFFFFF) -> bytes:
        return tag.to_bytes(2, "little") + perm.to_bytes(2, "little") + ident.to_bytes(4, "little")
    return (2).to_bytes(4, "little") + entry(0x01, 6) + entry(0x02, 4, uid) + entry(0x04, 0) + entry(0x10, 4) \
        + entry(0x20, 0)


def make_home(base: Path, owner, name: str, how: str, group: int) -> Path:
    files, _, _ = FILES[name]
    home = base / f"home-{uuid.uuid4().hex[:6]}"
    home.mkdir()
    for file, text in files.items():
        (home / file).write_text(text)
        (home / file).chmod(0o600)
    for path in [home, *home.iterdir()]:
        os.chown(path, owner[1], owner[2])
    home.chmod(0o700)
    target = home / name
    if how.startswith("own-"):
        target.chmod(int(how[4:], 8))
    else:
        os.chown(target, 0, group if how == "their-group" else 0)
        target.chmod(0o600 if how == "acl" else 0o040)
        if how == "acl":
            try:
                os.setxattr(target, "system.posix_acl_access", acl_letting_read(owner[1]))
            except OSError as exc:
                pytest.skip(f"this file system keeps no POSIX ACL: {exc}")
    return home


def verdict(code: int) -> str:
    return "stops" if code == 78 else "starts"


def as_root(*args: str) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], capture_output=True, text=True,
                          timeout=60, env=env, cwd="/")


CASES = [pytest.param(name, how, marks=[] if (name, how) in FAST else [pytest.mark.slow])
         for name in FILES for how in HOWS]


@pytest.mark.parametrize("name,how", CASES)
def test_root_reads_each_file_as_its_owner_would(scratch, pythons, owner, their_group, name, how):
    hermes_python, wizard_python = pythons
    home = make_home(scratch, owner, name, how, their_group)
    readable = HOWS[how]
    expected = FILES[name][1 if readable else 2]

    told = as_owner.gateway_as(home, scratch, hermes_python)  # the truth: Hermes itself, as the owner
    hermes = "crashes" if told["crash"] else "starts" if told["would_start"] else "refuses"
    assert hermes == expected, told
    if not readable and name == ".env":
        assert "PermissionError" in told["crash"], told

    checked = as_root("check", "--format", "json", "--home", str(home))
    gated = as_root("check", "--gate", "--home", str(home))
    own_check = as_owner.wizard_as(["check", "--format", "json"], home, scratch, wizard_python)
    own_gate = as_owner.wizard_as(["check", "--gate"], home, scratch, wizard_python)
    for ran in (checked, gated, own_check, own_gate):
        assert verdict(ran.returncode) == ("starts" if hermes == "starts" else "stops"), \
            (ran.args, ran.returncode, ran.stdout, ran.stderr)
    report = json.loads(checked.stdout)
    # whose `.env` should be is the owner's, who runs the gateway, not root's (HW015)
    assert "not by you (uid 0)" not in checked.stdout
    assert (f"not by the home's owner (uid {owner[1]})" in checked.stdout) is (name == ".env" and
                                                                              not how.startswith("own-"))
    assert report["would_start"] == json.loads(own_check.stdout)["would_start"] == (hermes == "starts")
    if not readable and name != "gateway.json":  # said as the owner would find it (Hermes ignores gateway.json
        assert f"uid {owner[1]}, the home's owner, may not read" in checked.stdout, checked.stdout  # silently)
        assert "AAHrootReadsAsOwner" not in checked.stdout + checked.stderr


def _shared_home(base: Path, owner, files: dict[str, str]) -> Path:
    """A home of the owner's (0700) holding `files` (relative paths -> text), each the owner's at 0600."""
    home = base / f"home-{uuid.uuid4().hex[:6]}"
    for rel, text in files.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
        (home / rel).chmod(0o600)
    for path in [home, *home.rglob("*")]:
        os.chown(path, owner[1], owner[2])
    home.chmod(0o700)
    return home


def _unreadable_to_owner(path: Path, how: str, group: int) -> None:
    if how.startswith("own-"):
        path.chmod(int(how[4:], 8))
    else:
        os.chown(path, 0, group if how == "their-group" else 0)
        path.chmod(0o040)


@pytest.mark.parametrize("how", ["own-000", "root-group", "their-group"])
def test_root_reads_the_pairing_store_as_its_owner_would(scratch, pythons, owner, their_group, how):
    """Hermes's `PairingStore._load_json` reads an unreadable file as {} (gateway/pairing.py: PermissionError is
    logged and swallowed): the sender is not paired.  Root's `access` must say what Hermes, as the owner, decides."""
    hermes_python, wizard_python = pythons
    approved = "platforms/pairing/telegram-approved.json"
    home = _shared_home(scratch, owner, {".env": "TELEGRAM_BOT_TOKEN=7123456789:AAHrootReadsAsOwner_0123456789\n",
                                         approved: json.dumps({"555": {"user_name": "paired-one"}})})
    _unreadable_to_owner(home / approved, how, their_group)
    (home / "platforms" / "pairing").chmod(0o700)
    sender = {"platform": "telegram", "user_id": "555", "chat_type": "dm", "chat_id": "555"}
    told = as_owner.authz_as(home, [sender], scratch, hermes_python)
    assert told["error"] is None, told
    assert told["results"] == [HOWS[how]], told
    asked = as_root("access", "--home", str(home), "telegram", "555", "--format", "json")
    own = as_owner.wizard_as(["access", "telegram", "555", "--format", "json"], home, scratch, wizard_python)
    assert asked.returncode == own.returncode == (0 if HOWS[how] else 1), (asked.stdout, own.stdout, own.stderr)
    assert json.loads(asked.stdout)["authorized"] is json.loads(own.stdout)["authorized"] is HOWS[how]
    if not HOWS[how]:
        overview = as_root("access", "--home", str(home)).stdout
        body = overview.split("\n", 1)[1]  # below the header, which names the home (a random name may hold 555)
        assert "paired-one" not in body and "555" not in body, overview


CREDS = json.dumps({"me": {"id": "15551234567:3@s.whatsapp.net", "name": "bot"}, "registered": True})


@pytest.mark.parametrize("how", ["own-000", "their-group"])
def test_root_judges_whatsapps_session_as_its_owner_would(scratch, pythons, owner, their_group, how):
    """creds.json is read by the WhatsApp bridge, which runs as the owner (Hermes's Python only asks whether it
    exists, plugins/platforms/whatsapp/adapter.py): one the owner cannot read is no session.  Root's verdict on
    the transport is the owner's own."""
    _, wizard_python = pythons
    creds = "platforms/whatsapp/session/creds.json"
    home = _shared_home(scratch, owner, {".env": "WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\n"
                                                 "WHATSAPP_ALLOWED_USERS=15557654321\n", creds: CREDS})
    _unreadable_to_owner(home / creds, how, their_group)
    root = json.loads(as_root("check", "--format", "json", "--home", str(home)).stdout)
    own = json.loads(as_owner.wizard_as(["check", "--format", "json"], home, scratch, wizard_python).stdout)
    transport = {row["name"]: row["transport"] for row in root["platforms"]}["whatsapp"]
    assert transport == {row["name"]: row["transport"] for row in own["platforms"]}["whatsapp"]
    assert (transport == "paired") is HOWS[how], root["platforms"]


@pytest.mark.parametrize("how", ["own-000", "own-200", "their-group"])
def test_root_reads_the_homes_hermes_version_as_its_owner_would(scratch, pythons, owner, their_group, how):
    """The version is read from the home's venv (hermes-agent/venv): a METADATA the owner cannot read says
    nothing, so the dist-info's name decides — 0.19.0 here, whose start-up rule refuses this open policy, where
    the METADATA's forged 0.17.0 (no such rule) would let it start."""
    _, wizard_python = pythons
    metadata = "hermes-agent/venv/lib/python3.11/site-packages/hermes_agent-0.19.0.dist-info/METADATA"
    home = _shared_home(scratch, owner, {".env": TELEGRAM + WEIXIN + "WEIXIN_DM_POLICY=open\n",
                                         metadata: "Metadata-Version: 2.1\nName: hermes-agent\nVersion: 0.17.0\n"})
    for folder in (home / metadata).parents:
        if folder == home:
            break
        folder.chmod(0o755)
    _unreadable_to_owner(home / metadata, how, their_group)
    root = as_root("check", "--format", "json", "--home", str(home))
    own = as_owner.wizard_as(["check", "--format", "json"], home, scratch, wizard_python)
    assert json.loads(root.stdout)["hermes"]["version"] == json.loads(own.stdout)["hermes"]["version"] == \
        ("0.17.0" if HOWS[how] else "0.19.0")
    assert root.returncode == own.returncode and (root.returncode == 78) is not HOWS[how], root.stdout
    gates = [as_root("check", "--gate", "--home", str(home)).returncode,
             as_owner.wizard_as(["check", "--gate"], home, scratch, wizard_python).returncode]
    assert gates == [0 if HOWS[how] else 78] * 2
