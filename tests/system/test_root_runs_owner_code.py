"""Root never runs a home owner's code in its own session, as itself, or as a third user (ARCHITECTURE.md, "Contracts":
anything from a home runs confined).

An administrator runs hermes-wizard as root, on a real terminal, on a home a throw-away user owns.  That
user planted a Hermes of their own (tests/support/fake_hermes.py: it records who ran it and how).  Every test is
written from the attacker's side: what the planted code could reach, and a sentinel tree outside the
home that must stay byte-identical.
"""

from __future__ import annotations

import hashlib
import os
import pty
import select
import subprocess
import time
import uuid
from pathlib import Path

import fake_hermes
import pytest

from system.test_root_homes import VENV_WIZARD, user_home  # owner and place, the fixtures, are system/conftest.py's

ROOT_SECRET = "ROOT-ONLY-" + uuid.uuid4().hex


def in_terminal(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, str]:
    """hermes-wizard run as root on a real pseudo-terminal (its controlling terminal), with a root-only file
    open on descriptor 9; (exit status, what the terminal showed)."""
    secret = Path("/root") / f".hw-secret-{uuid.uuid4().hex}"
    secret.write_text(ROOT_SECRET)
    secret.chmod(0o600)
    pid, master = pty.fork()
    if pid == 0:  # the child: a session on the terminal, as an administrator's shell would start it
        try:
            fd = os.open(secret, os.O_RDONLY)
            os.dup2(fd, 9)
            os.execve(str(VENV_WIZARD), [str(VENV_WIZARD), *args], env or dict(os.environ))
        finally:
            os._exit(127)
    shown, deadline = bytearray(), time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's last user is gone
                break
            if not chunk:
                break
            shown += chunk
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(master)
        secret.unlink()
    return os.waitstatus_to_exitcode(status), shown.decode("utf-8", "replace")


def snapshot(top: Path) -> dict[str, tuple]:
    """Every entry under `top`: kind, bytes' digest or link target, mode and owner."""
    out = {}
    for path in sorted([top, *top.rglob("*")]):
        st = path.lstat()
        body = (os.readlink(path) if path.is_symlink() else
                hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir")
        out[str(path.relative_to(top))] = (body, st.st_mode, st.st_uid, st.st_gid)
    return out


def foreign_home_with_hermes(base: Path, owner) -> tuple[Path, Path]:
    """The owner's home (an open WhatsApp: it refuses) with their own Hermes in hermes-agent/venv; (home, record)."""
    home = user_home(base, owner)
    record = fake_hermes.record_place(base, owner)
    fake_hermes.plant(home / "hermes-agent" / "venv", record, owner)
    fake_hermes.give(home / "hermes-agent", owner)
    return home, record


@pytest.fixture
def victim():
    """A third user, with a Hermes home of their own."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    name = "hwv" + uuid.uuid4().hex[:8]
    subprocess.run(["useradd", "-M", "-s", "/bin/sh", name], check=True, capture_output=True)
    try:
        import pwd

        entry = pwd.getpwnam(name)
        yield name, entry.pw_uid, entry.pw_gid
    finally:
        subprocess.run(["userdel", name], capture_output=True)


def test_verify_runs_the_owners_hermes_as_the_owner_without_roots_terminal_env_or_files(place, owner):
    base, _ = place
    home, record = foreign_home_with_hermes(base, owner)
    (home / "root-secret").write_text(ROOT_SECRET)  # root's, in the owner's home: the owner cannot read it
    (home / "root-secret").chmod(0o600)
    env = dict(os.environ, AWS_SECRET_ACCESS_KEY=ROOT_SECRET, PATH=f"/root/bin:{os.environ.get('PATH', '')}")
    code, shown = in_terminal("check", "--verify", "--inherit-env", "--home", str(home), env=env)
    assert code in (0, 1, 78), shown
    [seen] = fake_hermes.records(record)
    assert (seen["uid"], seen["euid"], seen["gid"]) == (owner[1], owner[1], owner[2])
    assert set(seen["groups"]) <= {owner[2]}  # root's supplementary groups are gone
    assert seen["session_leader"] and seen["tty"] != "opened"  # a session of its own: no way to root's terminal
    assert seen["stdin"] == "/dev/null"
    assert ROOT_SECRET not in str(seen["env"]) and "/root" not in seen["env"].get("PATH", "")
    assert seen["env"]["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert set(seen["env"]) <= {"PATH", "HOME", "HERMES_HOME", "LANG", "LC_ALL", "HERMES_DISABLE_LAZY_INSTALLS",
                                "PIP_NO_INDEX", "PIP_NO_INPUT", "PYTHONDONTWRITEBYTECODE", "NO_PROXY", "no_proxy",
                                "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"}
    assert 9 not in seen["fds"] and max(seen["fds"]) <= 4  # 0-2 and the descriptor that listed them
    assert seen["copy_owners"] == [owner[1]]  # made by the owner's own process: root chowned nothing
    assert not seen["copy"].startswith(str(home)) and ".env" in seen["copy_files"]
    assert "root-secret" not in seen["copy_files"]  # copied with the owner's rights, not root's
    assert not Path(seen["copy"]).exists()  # the copy is gone afterwards


def test_an_unmodelled_hermes_is_asked_by_every_check_as_the_owner_only(place, owner):
    """A Hermes no model judges (the owner planted one that says 0.23.0) is asked by a plain `check` and by the
    gate, without --verify: as the owner, confined exactly like --verify, and root's environment never reaches it."""
    base, _ = place
    home = user_home(base, owner)
    record = fake_hermes.record_place(base, owner)
    fake_hermes.plant(home / "hermes-agent" / "venv", record, owner, version="0.23.0")
    fake_hermes.give(home / "hermes-agent", owner)
    env = dict(os.environ, AWS_SECRET_ACCESS_KEY=ROOT_SECRET)
    code, shown = in_terminal("check", "--home", str(home), env=env)
    assert "Asked Hermes 0.23.0 itself, on a copy of the home: the gateway would start" in shown, shown
    code, shown = in_terminal("check", "--gate", "--home", str(home), env=env)
    assert code == 0, shown
    seen_all = fake_hermes.records(record)
    assert len(seen_all) == 2
    for seen in seen_all:
        assert (seen["uid"], seen["euid"], seen["gid"]) == (owner[1], owner[1], owner[2])
        assert seen["session_leader"] and seen["tty"] != "opened" and seen["stdin"] == "/dev/null"
        assert ROOT_SECRET not in str(seen["env"]) and seen["env"]["PATH"] == "/usr/local/bin:/usr/bin:/bin"
        assert 9 not in seen["fds"] and seen["copy_owners"] == [owner[1]] and not Path(seen["copy"]).exists()


def test_verify_as_root_shows_what_the_owners_hermes_said_escaped(place, owner):
    base, _ = place
    home, record = foreign_home_with_hermes(base, owner)
    site = next((home / "hermes-agent" / "venv" / "lib").glob("python3*/site-packages"))
    run_py = site / "gateway" / "run.py"
    run_py.write_text(run_py.read_text() + "\ndef load_gateway_config_for_runner():\n"
                      "    raise RuntimeError('\\x1b]2;owned\\x07\\x1b[2J' + 'x' * 5000)\n")
    code, shown = in_terminal("check", "--verify", "--home", str(home))
    assert "\x1b]2;owned" not in shown and "\x1b[2J" not in shown
    assert "\\x1b]2;owned" in shown or "owned" in shown  # said, escaped
    assert "x" * 400 not in shown  # bounded
    assert code in (1, 78)


def _linked_profiles(base: Path, owner, target: Path) -> Path:
    home, _ = foreign_home_with_hermes(base, owner)
    (home / "profiles").symlink_to(target)
    os.lchown(home / "profiles", owner[1], owner[2])
    return home


def _decoy_profile(folder: Path, record: Path, who=None) -> None:
    """A profile-shaped folder outside the owner's home: an open policy (a repair would rewrite it) and a
    Hermes of its own that records if anything runs it."""
    profile = folder / "p1"
    profile.mkdir(parents=True)
    (profile / ".env").write_text("WHATSAPP_ENABLED=true\nWHATSAPP_MODE=bot\nWHATSAPP_DM_POLICY=open\n")
    (profile / ".env").chmod(0o600)
    fake_hermes.plant(profile / "hermes-agent" / "venv", record)
    if who is not None:
        fake_hermes.give(folder, who)


@pytest.mark.parametrize("whose", ["root", "third-user"])
def test_a_linked_profiles_folder_is_never_followed(place, owner, victim, whose):
    base, decoy = place
    record = fake_hermes.record_place(base, owner)
    target = decoy / "profiles" if whose == "root" else base / "victim" / ".hermes" / "profiles"
    _decoy_profile(target, record)
    if whose == "third-user":
        fake_hermes.give(base / "victim", victim)
    home = _linked_profiles(base, owner, target)
    outside = snapshot(target.parent)
    for args in (["check", "--verify", "--all-profiles"], ["doctor", "--fix", "--yes", "--verify", "--all-profiles"],
                 ["check", "--verify", "--profile", "p1"], ["undo", "--yes", "--profile", "p1"]):
        code, shown = in_terminal(*args, "--home", str(home))
        assert "is a symbolic link" in shown, (args, shown)
        if "--profile" in args:
            assert code == 2, (args, shown)
    ran = fake_hermes.records(record)
    assert all(seen["uid"] == owner[1] for seen in ran), ran  # only the owner's own Hermes, as the owner
    assert not any("p1" in str(seen["copy_files"]) or seen["uid"] != owner[1] for seen in ran)
    assert snapshot(target.parent) == outside  # nothing outside the home changed, not a mode, not an owner


def test_a_profile_the_owner_does_not_own_is_refused(place, owner):
    base, _ = place
    home, record = foreign_home_with_hermes(base, owner)
    (home / "profiles").mkdir()
    os.chown(home / "profiles", owner[1], owner[2])
    _decoy_profile(home / "profiles", record)  # p1 belongs to root: not the owner's, never used
    before = snapshot(home / "profiles")
    code, shown = in_terminal("check", "--verify", "--all-profiles", "--home", str(home))
    assert f"not to uid {owner[1]} who owns the Hermes home" in shown
    code, shown = in_terminal("doctor", "--fix", "--yes", "--profile", "p1", "--home", str(home))
    assert code == 2 and "is not used" in shown
    # p1 is a folder name of the copy's path, never a substring: the copy's random temp name may hold "p1"
    assert all(seen["uid"] == owner[1] and "p1" not in Path(seen["copy"]).parts for seen in fake_hermes.records(record))
    assert snapshot(home / "profiles") == before


def test_doctor_as_root_asks_the_owners_hermes_only_when_told(place, owner):
    base, _ = place
    home, record = foreign_home_with_hermes(base, owner)
    code, shown = in_terminal("doctor", "--fix", "--yes", "--home", str(home))
    assert "Hermes itself was not asked" in shown
    assert f"(`hermes-wizard check --verify` asks it, run as {owner[0]}" in shown
    assert fake_hermes.records(record) == []
    subprocess.run([str(VENV_WIZARD), "undo", "--yes", "--home", str(home)], capture_output=True, check=True)
    code, shown = in_terminal("doctor", "--fix", "--yes", "--verify", "--home", str(home))
    assert [seen["uid"] for seen in fake_hermes.records(record)] == [owner[1]]
    assert "itself, asked on a copy of the written files" in shown


def test_the_copy_is_bounded_in_entries_and_the_run_in_time(place, owner):
    base, _ = place
    home, record = foreign_home_with_hermes(base, owner)
    many = home / "many"
    many.mkdir()
    for index in range(25_000):
        (many / str(index)).touch()
    fake_hermes.give(many, owner)
    started = time.monotonic()
    code, shown = in_terminal("check", "--verify", "--home", str(home))
    assert time.monotonic() - started < 30
    assert "more than 20000 entries" in shown
    assert fake_hermes.records(record) == []  # Hermes was never imported on a partial copy


def test_a_confined_run_ends_at_its_deadline_with_its_whole_group(owner):
    from hermes_wizard.core import confined

    who = confined.Identity(owner[1], owner[2], owner[0], "/", switch=True)
    started = time.monotonic()
    done = confined.run(["/bin/sh", "-c", "sleep 300 & echo started; sleep 300"], who,
                        confined.base_env(who), timeout=1.0)
    assert time.monotonic() - started < 8
    assert done.timed_out and done.stdout == b"started\n"
    for _ in range(50):  # the background sleeper goes with the group (a signalled process takes a moment)
        alive = subprocess.run(["pgrep", "-u", str(owner[1]), "-r", "RSDT", "sleep"], capture_output=True)
        if alive.returncode == 1:
            break
        time.sleep(0.1)
    assert alive.returncode == 1, alive.stdout


def test_a_confined_run_reads_a_bounded_answer(owner):
    from hermes_wizard.core import confined

    who = confined.Identity(owner[1], owner[2], owner[0], "/", switch=True)
    done = confined.run(["/bin/sh", "-c", "yes; yes >&2"], who, confined.base_env(who), timeout=20,
                        out_limit=4096)
    assert done.overflowed and len(done.stdout) == 4096 and not done.timed_out


def test_on_its_own_home_root_still_runs_hermes_without_its_terminal(place):
    """Not a privilege boundary (root's own home), yet the same confinement: Hermes's config load runs the
    home's plugins, which must not reach the terminal either."""
    base, _ = place
    home = user_home(base, (None, 0, 0))
    record = base / "records.jsonl"
    fake_hermes.plant(home / "hermes-agent" / "venv", record)
    code, shown = in_terminal("check", "--verify", "--home", str(home),
                              env=dict(os.environ, AWS_SECRET_ACCESS_KEY=ROOT_SECRET))
    [seen] = fake_hermes.records(record)
    assert seen["uid"] == 0 and seen["session_leader"] and seen["tty"] != "opened"
    assert ROOT_SECRET not in str(seen["env"])  # without --inherit-env, nothing of the caller's


def test_root_never_keeps_a_users_secrets_in_roots_keyring(place, owner):
    """The keyring is per user: root's setup of someone else's home cannot keep its secrets in root's keyring
    (the owner's gateway would never read them); it says so, and writes nothing."""
    base, _ = place
    home = user_home(base, owner)
    before = snapshot(home)
    answers = base / "answers.yaml"
    answers.write_text("secrets: keyring\nplatforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: "
                       "TELEGRAM_BOT_TOKEN}}\n")
    done = subprocess.run([str(VENV_WIZARD), "setup", "--answers", str(answers), "--home", str(home)],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                          env=dict(os.environ, TELEGRAM_BOT_TOKEN="123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"))
    assert done.returncode != 0 and f"this home belongs to {owner[0]}" in done.stdout + done.stderr
    assert snapshot(home) == before
