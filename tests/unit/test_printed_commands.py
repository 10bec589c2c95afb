"""Every command the tool prints for its user to run is run, as printed, and does what its sentence says.

The commands are not a hand-copied list: each situation runs a face as a user meets it (setup and bare
`hermes-wizard` without a terminal, `check` and `doctor` on the demo home, `check` where Hermes is found and
its plugin tip shows, the gate's journal line, the doctor's repair and its undo, `access` and `pairing list` with
a request waiting, `demo`, every `explain` text) and the commands are read out of what it printed
(`printed_commands`).  Placeholders the text shows (`FILE.yaml`, `<CODE>`, `PLATFORM ID`) are filled
with real values of the situation; a placeholder nobody fills fails the test, so a new one is noticed.

Our own (`hermes-wizard …`) run in this process (tests/support/in_process.py) with HOME in a scratch folder
whose `~/.hermes` is the situation's home, restored before each command: one the text says asks first
(`doctor --fix`, `undo`) gets a terminal on stdin answering "y", as the user at a terminal would; everything
else runs without one.  Each must not exit 2 (usage) and must do what it says (`WHAT_IT_SAYS`).  Hermes's
own (`hermes …`) run in the oracle Hermes venvs (tests/support/oracle/) on a copy of the home, for argument
acceptance: a run that fails later (no network, no terminal, no such code) is fine once argparse took it; one
version's argparse taking it is enough (`hermes pm` is the main line's); `hermes pairing approve` with a code
that really waits must approve it.  Without the oracle venv (CI without `scripts/oracle-venv.sh`), Hermes's
commands are not run and the situations that need its Python are skipped, saying so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from in_process import wizard_in_process
from oracle import HERMES_VERSION, VERSIONS, clean_env, hermes_command, missing_reason, venv_python

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"
TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"
ANSWERS = ("platforms:\n  telegram:\n    env:\n      TELEGRAM_BOT_TOKEN: {from_env: TELEGRAM_BOT_TOKEN}\n"
           "    dm_policy: allowlist\n    allowed_users: ['123456789']\n")
# words a printed command shows in place of a value (`explain CODE`, `--target X`): each must be filled
PLACEHOLDERS = {"FILE", "FILE.yaml", "PLATFORM", "ID", "CODE", "X", "VAR", "PATH", "NAME", "SENDER", "OUT"}

# ---- reading commands out of what was printed --------------------------------------------------------------

_START = re.compile(r"(?<![\w/.`-])(hermes-wizard|hermes)(?= )|(?<=`)(hermes-wizard|hermes)(?= )")
_OURS = {"check", "setup", "doctor", "undo", "demo", "secrets", "access", "pairing", "explain", "--help",
         "--version"}
_HERMES = {"gateway", "pairing", "whatsapp", "plugins", "pm", "setup"}
# words that end a command written inside a sentence ("… doctor --fix, then start …", "`undo` restores")
_PROSE = {"then", "to", "and", "or", "again", "with", "takes", "restores", "applies", "moves", "first", "does",
          "is", "in", "on", "for", "shows", "tells", "lists", "writes", "adds", "rewrites", "asks", "gives", "if",
          "when", "so", "—", "→", "·", "itself", "inside", "before", "after", "stops", "repairs", "says"}


def printed_commands(text: str) -> list[str]:
    """The commands in `text`: `hermes-wizard …` or `hermes …` in backticks, or running to the end of their
    clause; prose about the tool ("a hermes-wizard bug") is not a command."""
    found = []
    for match in _START.finditer(text):
        start = match.start()
        if text[start - 1:start] == "`":
            command = text[start:].split("`", 1)[0]
        else:
            clause = re.split(r" {2}|[,;()`]|\.(?:\s|$)|:\s", text[start:].split("\n", 1)[0])[0]
            words = []
            for word in clause.split():
                if word in _PROSE:
                    break
                words.append(word)
            command = " ".join(words)
        words = command.split()
        if len(words) > 1 and words[1] in (_OURS if words[0] == "hermes-wizard" else _HERMES):
            found.append(command.strip())
    return found


# ---- the situations ------------------------------------------------------------------------------------------


@dataclass
class User:
    root: Path  # HOME
    home: Path  # ~/.hermes, the situation's home
    answers: Path
    environ: pytest.MonkeyPatch

    def run(self, *args: str, terminal_says: str | None = None) -> subprocess.CompletedProcess:
        """The command line in this process; stdin a terminal that answers `terminal_says`, else no terminal."""
        if terminal_says is None:
            sys.stdin = io.StringIO("")
            return wizard_in_process(*args)
        primary, secondary = os.openpty()
        os.write(primary, terminal_says.encode())
        with open(secondary, encoding="utf-8") as tty:
            sys.stdin = tty
            try:
                return wizard_in_process(*args)
            finally:
                os.close(primary)


@pytest.fixture
def user(tmp_path, monkeypatch) -> User:
    root = tmp_path / "user"
    root.mkdir()
    monkeypatch.setenv("HOME", str(root))
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # `demo`'s copy lands in the test's folder
    answers = tmp_path / "answers.yaml"
    answers.write_text(ANSWERS)
    return User(root, root / ".hermes", answers, monkeypatch)


def _demo_home(user: User) -> None:
    shutil.copytree(DEMO, user.home)
    (user.home / ".env").chmod(0o600)


def _waiting_home(user: User) -> str:
    """A telegram home on pairing with one request waiting; its code."""
    (user.home / "platforms" / "pairing").mkdir(parents=True)
    (user.home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={TOKEN}\nTELEGRAM_DM_POLICY=pairing\n")
    (user.home / ".env").chmod(0o600)
    salt = os.urandom(16)  # as Hermes's PairingStore keeps a code: salted and hashed, under an entry id
    (user.home / "platforms" / "pairing" / "telegram-pending.json").write_text(json.dumps(
        {"5f0c1d2e3a4b5c6d": {"hash": hashlib.sha256(salt + b"K7PQ2MXA").hexdigest(), "salt": salt.hex(),
                              "user_id": "5501234567", "user_name": "Lee", "created_at": time.time() - 120}}))
    return "K7PQ2MXA"


def _said(done: subprocess.CompletedProcess) -> str:
    return done.stdout + "\n" + done.stderr


def _json_strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for item in value.values() for s in _json_strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _json_strings(item)]
    return [value] if isinstance(value, str) else []


def setup_no_terminal(user: User) -> str:
    _demo_home(user)
    return _said(user.run("setup"))


def setup_no_terminal_elsewhere(user: User) -> str:
    """--home given: the commands printed carry it."""
    _demo_home(user)
    elsewhere = user.root / "other home"
    shutil.move(user.home, elsewhere)
    user.home = elsewhere
    return _said(user.run("setup", "--home", str(elsewhere)))


def setup_no_terminal_new_home(user: User) -> str:
    return _said(user.run("setup"))


def bare_new_home(user: User) -> str:
    return _said(user.run())


def bare_demo_home(user: User) -> str:
    _demo_home(user)
    return _said(user.run())


def check_demo(user: User) -> str:
    _demo_home(user)
    return _said(user.run("check")) + "\n" + "\n".join(_json_strings(json.loads(user.run("check", "--format",
                                                                                          "json").stdout)))


def doctor_no_terminal(user: User) -> str:
    _demo_home(user)
    return _said(user.run("doctor")) + "\n" + _said(user.run("doctor", "--dry-run"))


def gate_stops_a_start(user: User) -> str:
    """The journal line of the pre-start gate (`check --gate`, run by the drop-in) on a refusing home."""
    _demo_home(user)
    return _said(user.run("check", "--gate", "--home", str(user.home)))


def doctor_no_terminal_elsewhere(user: User) -> str:
    _demo_home(user)
    elsewhere = user.root / "other home"
    shutil.move(user.home, elsewhere)
    user.home = elsewhere
    return _said(user.run("doctor", "--home", str(elsewhere)))


def doctor_repaired(user: User) -> str:
    _demo_home(user)
    return _said(user.run("doctor", "--fix", "--yes"))


def undone(user: User) -> str:
    _demo_home(user)
    user.run("doctor", "--fix", "--yes")
    return _said(user.run("undo", "--list")) + "\n" + _said(user.run("undo", "--yes"))


def access_waiting(user: User) -> str:
    _waiting_home(user)
    return _said(user.run("access"))


def check_hermes_found(user: User) -> str:
    """`check` where Hermes is found (the oracle's Python) without this tool's plugin: its tip names Hermes's
    command that enables it."""
    if missing_reason(HERMES_VERSION):
        pytest.skip(missing_reason(HERMES_VERSION))
    user.environ.setenv("HERMES_WIZARD_HERMES_PYTHON", str(venv_python(HERMES_VERSION).absolute()))
    _demo_home(user)
    said = _said(user.run("check"))
    assert "Tip: " in said, said
    return said


def pairing_waiting(user: User) -> str:
    """`pairing list` with a request waiting, Hermes found (the oracle's Python, as $HERMES_WIZARD_HERMES_PYTHON
    names it): the approve command it prints is run through Hermes's own pairing code."""
    if missing_reason(HERMES_VERSION):
        pytest.skip(missing_reason(HERMES_VERSION))
    user.environ.setenv("HERMES_WIZARD_HERMES_PYTHON", str(venv_python(HERMES_VERSION).absolute()))
    _waiting_home(user)
    return _said(user.run("pairing", "list"))


def demo(user: User) -> str:
    said = _said(user.run("demo", "--plain"))
    user.home = Path(re.search(r"restart loop, at (\S+)\n", said)[1])  # the copy it made, and printed
    return said


def explained(user: User) -> str:
    _demo_home(user)
    return "\n".join(_json_strings(json.loads(user.run("explain", "--format", "json").stdout)))


SITUATIONS = [setup_no_terminal, setup_no_terminal_new_home, bare_new_home, bare_demo_home, check_demo,
              check_hermes_found, doctor_no_terminal, gate_stops_a_start, doctor_repaired, undone, access_waiting,
              pairing_waiting, explained]
# a home named with --home (or the demo's copy): every command printed names it, those the face composes and those
# of the verdict line, the findings and the plan's notes (judge/commands.py), so run as printed they act on it
NAMED_HOME = [setup_no_terminal_elsewhere, doctor_no_terminal_elsewhere, demo]

# ---- running one, and what its sentence says -----------------------------------------------------------------


def _fill(command: str, user: User, situation) -> list[str]:
    """The command's words with the placeholders the text shows filled in; raises on one nobody fills."""
    code = "K7PQ2MXA" if situation in (access_waiting, pairing_waiting) else "ABCD2345"
    fills = {"FILE.yaml": str(user.answers), "FILE": str(user.answers), "<CODE>": code, "CODE": "HW101",
             "<platform>": "telegram", "PLATFORM": "telegram", "ID": "123456789", "<its home>": str(user.home)}
    words = []
    for word in re.findall(r"'[^']*'|<[^>]*>|\S+", command.replace("<its home>", str(user.home))):
        word = fills.get(word, word)
        if word.startswith("'") and word.endswith("'"):
            word = word[1:-1]
        if re.fullmatch(r"<.*>", word) or word in PLACEHOLDERS:
            raise AssertionError(f"{command!r}: no value for the placeholder {word!r}")
        words.append(word)
    return words


def _tree(home: Path) -> dict[str, bytes | None]:
    if not home.exists():
        return {}
    return {str(p.relative_to(home)): (p.read_bytes() if p.is_file() else None) for p in sorted(home.rglob("*"))
            if ".wizard-backups" not in p.parts}


def _asks_first(words: list[str]) -> bool:
    """The command asks "[y/N]" before it writes (doctor --fix, undo without --yes, --list or --dry-run)."""
    flags = set(words[2:])
    return (words[1] == "doctor" and "--fix" in flags and "--yes" not in flags) or (
        words[1] == "undo" and not flags & {"--yes", "--list", "--dry-run"}) or (
        words[1] == "pairing" and words[2] in ("approve", "revoke") and "--yes" not in flags)


def _ours(words: list[str], user: User) -> str | None:
    """Run one of our commands as printed; what is wrong with what it did, or None.  `undo` speaks of a change
    ("… disabled; `hermes-wizard undo` restores"): where none was made yet, the doctor's repair is made first."""
    if words[1] == "undo" and not (user.home / ".wizard-backups").exists() and user.home.exists():
        user.run("doctor", "--fix", "--yes", "--home", str(user.home))
    before = _tree(user.home)
    done = user.run(*words[1:], terminal_says="y\n" if _asks_first(words) else None)
    said = _said(done)
    if done.returncode == 2 or "usage:" in done.stderr or "Traceback" in said:
        return f"exit {done.returncode}: {said.strip()[-400:]}"
    after = _tree(user.home)
    return WHAT_IT_SAYS.get(words[1], _accepted)(words, done, before, after, user)


def _accepted(words, done, before, after, user) -> str | None:
    return None


def _check_says(words, done, before, after, user) -> str | None:
    if "--gate" in words:  # one journal line, and only when it stops the start
        return None if done.returncode in (0, 78) and after == before else f"exit {done.returncode}"
    if done.returncode not in (0, 1, 78):
        return f"exit {done.returncode}"
    shows = json.loads(done.stdout) if "--format" in words else done.stdout
    return None if shows and (isinstance(shows, (dict, list)) or "Verdict:" in shows) else "no verdict printed"


def _doctor_says(words, done, before, after, user) -> str | None:
    if "--fix" not in words:  # shows the repair; nothing written
        if after != before:
            return "wrote without --fix"
        return None if "---" in done.stdout or "Nothing to repair" in done.stdout or done.returncode == 0 \
            else "no plan shown"
    if after == before:
        return "--fix changed nothing"
    again = user.run("check", "--home", str(user.home))
    return None if again.returncode != 78 else "the gateway still refuses after the repair"


def _undo_says(words, done, before, after, user) -> str | None:
    if set(words[2:]) & {"--list", "--dry-run"}:
        return None if after == before else "wrote while listing or previewing"
    return None if after != before and done.returncode == 0 else f"nothing restored (exit {done.returncode})"


def _setup_says(words, done, before, after, user) -> str | None:
    env = (user.home / ".env").read_text() if (user.home / ".env").exists() else ""
    if done.returncode == 78 and after == before and "refuse to start" in done.stdout:
        return None  # the rest of the home still refuses (the demo's WhatsApp): setup says so and writes nothing
    if "TELEGRAM_ALLOWED_USERS=123456789" not in env or f"TELEGRAM_BOT_TOKEN={TOKEN}" not in env:
        return f"telegram not set up as declared (exit {done.returncode}); .env: {env!r}"
    return None


def _explain_says(words, done, before, after, user) -> str | None:
    wanted = words[2] if len(words) > 2 else "HW101"
    return None if done.returncode == 0 and wanted in done.stdout else f"exit {done.returncode}: no {wanted}"


def _access_says(words, done, before, after, user) -> str | None:
    said = ("accepted:", "denied:") if len(words) > 3 else ("Who can reach",)  # one sender, or the overview
    answered = any(words_said in done.stdout for words_said in said)
    return None if done.returncode in (0, 1) and answered else f"exit {done.returncode}: no answer"


def _pairing_says(words, done, before, after, user) -> str | None:
    if words[2] != "approve":
        return None if after == before else "wrote while listing"
    approved = user.home / "platforms" / "pairing" / f"{words[3]}-approved.json"
    paired = json.loads(approved.read_text()) if approved.exists() else {}
    return None if "5501234567" in paired else f"not approved (exit {done.returncode}): {_said(done)[-300:]}"


WHAT_IT_SAYS = {"check": _check_says, "doctor": _doctor_says, "undo": _undo_says, "setup": _setup_says,
                "explain": _explain_says, "access": _access_says, "pairing": _pairing_says}

_ARGPARSE_REFUSED = ("invalid choice", "unrecognized arguments", "the following arguments are required",
                     "usage:")


def _hermes(words: list[str], home: Path, scratch: Path) -> str | None:
    """Run a command of Hermes in the oracle venvs until one's argparse takes it; None when one did."""
    refused = []
    for version in (HERMES_VERSION, *[v for v in VERSIONS if v != HERMES_VERSION]):
        if missing_reason(version):
            continue
        copy = scratch / f"hermes-{version}-{len(refused)}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(home, copy, symlinks=True) if home.exists() else copy.mkdir(parents=True)
        argv = [str(hermes_command(version)), *words[1:]]
        try:
            done = subprocess.run(argv, env=clean_env(scratch, copy, version=version), capture_output=True,
                                  text=True, timeout=20, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None  # still running after 20 s: argparse took it long ago
        said = done.stdout + done.stderr
        if done.returncode == 2 and any(word in said for word in _ARGPARSE_REFUSED):
            refused.append(f"{version}: {said.strip()[-200:]}")
            continue
        if words[1:3] == ["pairing", "approve"] and words[4] == "K7PQ2MXA":  # a real code waits: it must be approved
            approved = copy / "platforms" / "pairing" / f"{words[3]}-approved.json"
            return None if approved.exists() and "5501234567" in approved.read_text() else f"not approved: {said}"
        return None
    return "no oracle Hermes accepts it: " + " | ".join(refused) if refused else None


@pytest.mark.parametrize("situation", SITUATIONS, ids=[s.__name__ for s in SITUATIONS])
def test_every_printed_command_runs_as_printed(user, situation, tmp_path):
    _run_what_was_printed(user, situation, tmp_path)


@pytest.mark.parametrize("situation", NAMED_HOME, ids=[s.__name__ for s in NAMED_HOME])
def test_commands_printed_for_a_named_home_act_on_it(user, situation, tmp_path):
    _run_what_was_printed(user, situation, tmp_path)


def _run_what_was_printed(user: User, situation, tmp_path: Path) -> None:
    text = situation(user)
    found = list(dict.fromkeys(printed_commands(text)))
    # Hermes's command named without its arguments ("approves with `hermes pairing approve`") beside the whole of it
    commands = [c for c in found if not (c.startswith("hermes ") and any(o.startswith(c + " ") for o in found))]
    assert commands, f"{situation.__name__} printed no command:\n{text}"
    pristine = tmp_path / "pristine"
    if user.home.exists():
        shutil.copytree(user.home, pristine, symlinks=True)
    failures = []
    print(f"{situation.__name__}: {commands}")  # shown with -s, or when the test fails
    for command in commands:
        shutil.rmtree(user.home, ignore_errors=True)
        if pristine.exists():
            shutil.copytree(pristine, user.home, symlinks=True)
        try:
            words = _fill(command, user, situation)
        except AssertionError as unfilled:
            failures.append(str(unfilled))
            continue
        if words[0] == "hermes":
            if missing_reason(HERMES_VERSION):
                continue  # the oracle is not built here: tests/conftest.py's skips say so for the whole suite
            wrong = _hermes(words, user.home, tmp_path / "scratch")
        else:
            wrong = _ours(words, user)
        if wrong:
            failures.append(f"{command!r}: {wrong}")
    assert not failures, f"{situation.__name__}: printed commands that do not do what they say:\n" + "\n".join(
        failures) + f"\n--- what it printed:\n{text}"


def test_the_reader_finds_commands_in_sentences():
    text = ("Fix: hermes-wizard doctor --fix, then start the gateway once (hermes gateway run)\n"
            "  waiting: Lee (2 min ago) → hermes pairing approve telegram <CODE>\n"
            "report this as a hermes-wizard bug; `hermes-wizard undo` restores\n"
            "Run `hermes-wizard doctor --fix` to apply. demo: try also: hermes-wizard check --home /x   (and setup)")
    assert printed_commands(text) == ["hermes-wizard doctor --fix", "hermes gateway run",
                                      "hermes pairing approve telegram <CODE>", "hermes-wizard undo",
                                      "hermes-wizard doctor --fix", "hermes-wizard check --home /x"]


def test_the_doctors_run_line_applies_the_plan_it_shows_to_the_home_it_shows(user):
    """`doctor --home X --dead-transport keep` without a terminal shows its plan and the command that applies it:
    run as printed, that command repairs X (not ~/.hermes) keeping WhatsApp enabled, as shown (not disabling it,
    the default)."""
    _demo_home(user)
    elsewhere = user.root / "other home"
    shutil.move(user.home, elsewhere)
    shown = user.run("doctor", "--home", str(elsewhere), "--dead-transport", "keep")
    assert "weixin: dm_policy open → pairing" in shown.stdout, shown
    assert "whatsapp: will be disabled" not in shown.stdout, shown
    (run_line,) = [c for c in printed_commands(shown.stdout) if c.startswith("hermes-wizard doctor --fix")]
    done = user.run(*_fill(run_line, user, None)[1:], terminal_says="y\n")
    env = (elsewhere / ".env").read_text()
    assert done.returncode != 2 and "WEIXIN_DM_POLICY=pairing" in env and "WHATSAPP_ENABLED=true" in env, done
