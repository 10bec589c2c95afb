"""Handing the terminal over (faces/handover.py), below the faces: the child on a pty of its own gets the Ctrl+C
typed to it and this process does not; what it printed and the home's names it touched come back escaped and
masked; a link in the home is not followed; a home too large to compare says so.  Real processes on real ptys;
the terminal side is a pair of pipes (tests/system/test_handover_terminal.py has the real terminal)."""

from __future__ import annotations

import os
import select
import threading
import time
from pathlib import Path

import oracle
import pytest

from hermes_wizard.core.safetext import scrubber
from hermes_wizard.faces import handover
from hermes_wizard.faces.handover import hand_over
from hermes_wizard.faces.pair_now import Login

SECRET = "wx-token-0123456789abcdef"
HOSTILE = "evil\x1b]52;c;ZXZpbA==\x07\u202ename"


def login_running(tmp_path: Path, script: str) -> Login:
    program = tmp_path / "bin" / "hermes"
    program.parent.mkdir(exist_ok=True)
    program.write_text("#!/bin/sh\n" + script)
    program.chmod(0o755)
    return Login("weixin", (str(program), "gateway", "setup"),
                 {"PATH": "/usr/bin:/bin", "HERMES_HOME": str(tmp_path / "home")}, "")


STEP_SECONDS = 60  # how long a step's text is waited for (a loaded machine starts Hermes in seconds)


def run(login: Login, home: Path, *, steps: tuple[tuple[bytes, bytes], ...] = (), **kwargs):
    """hand_over with pipes for the terminal: each step's keys are typed once its text was printed (after the
    previous step's keys); the handed back and what the terminal showed."""
    keys_in, keys_out = os.pipe()
    shown_in, shown_out = os.pipe()
    shown = bytearray()

    def terminal() -> None:
        # Each step's text is looked for after the previous step's text (not after what had been read when it
        # matched: the next prompt may come in the same read).  A step not seen within STEP_SECONDS gets Ctrl+C
        # until the login ends, so a login that prints something else fails the test instead of hanging it.
        waiting, start, since = list(steps), 0, time.monotonic()
        while True:
            ready, _, _ = select.select([shown_in], [], [], 1.0)
            if ready:
                data = os.read(shown_in, 4096)
                if not data:
                    return
                shown.extend(data)
            while waiting and (found := shown.find(waiting[0][0], start)) >= 0:
                start, since = found + len(waiting[0][0]), time.monotonic()
                os.write(keys_out, waiting.pop(0)[1])
            if waiting and time.monotonic() - since > STEP_SECONDS:
                os.write(keys_out, b"\x03")

    reader = threading.Thread(target=terminal)
    reader.start()
    try:
        back = hand_over(login, home, wait=False, stdin=keys_in, stdout=shown_out, **kwargs)
    finally:
        os.close(shown_out)
        reader.join(10)
        for fd in (keys_in, keys_out, shown_in):
            os.close(fd)
    return back, bytes(shown)


def test_ctrl_c_typed_to_the_login_ends_the_login_alone(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    login = login_running(tmp_path, 'echo "{}" > "$HERMES_HOME/accounts.json"\necho READY\nread answer\n'
                                    'echo "not reached" > "$HERMES_HOME/after.txt"\n')
    back, shown = run(login, home, steps=((b"READY", b"\x03"),))  # the byte Ctrl+C sends
    assert back.code == -2 and back.ended() == "hermes gateway setup was ended by Ctrl+C"
    assert back.wrote == ("accounts.json",) and not (home / "after.txt").exists()
    assert b"READY" in shown and "READY" in back.tail
    # ... and this process, which ran it, is still here to say so (pytest would have stopped otherwise)


@pytest.mark.oracle
def test_the_real_hermes_gets_its_own_ctrl_c_and_its_files_are_named(tmp_path):
    """Hermes 0.19.0's `gateway setup`: its menu falls back to a numbered prompt at the first Ctrl+C and exits 1
    at the second; before asking anything it has written into the home (the issue's ten files, here fewer)."""
    oracle.require_oracle()
    home = tmp_path / "home"
    home.mkdir()
    hermes = oracle.hermes_command()
    login = Login("weixin", (str(hermes), "gateway", "setup"),
                  {"PATH": f"{hermes.parent}:/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm",
                   "HERMES_HOME": str(home)}, "")
    back, _ = run(login, home, steps=((b"Select a platform", b"\x03"), (b"Select [", b"\x03")))
    assert back.code == 1 and back.ended() == "hermes gateway setup ended with exit status 1"
    assert back.tail[-2:] == ("    Enter for default (27)  Ctrl+C to exit", "  Select [1-27] (27): ^C")
    assert "SOUL.md" in (back.wrote or ()) and (home / "SOUL.md").is_file()


def test_what_comes_back_from_the_home_is_escaped_and_masked(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / HOSTILE).write_text("old")
    (home / "everything").symlink_to("/")  # never walked: the listing stays in the home
    escapes = "\\033]52;c;aGk=\\007\\342\\200\\256"  # OSC 52 (the clipboard), U+202E
    login = login_running(tmp_path, f'printf "new" > "$HERMES_HOME/{HOSTILE}"\n'
                                    f"printf 'token \\033[31m{SECRET}\\033[0m {escapes} done\\n'\n"
                                    'printf "line\\nbreak" > "$HERMES_HOME/$(printf "a\\nb")"\n')
    back, _ = run(login, home, redact=scrubber({SECRET}))
    assert back.code == 0 and back.wrote == tuple(sorted((HOSTILE, "a\nb")))
    said = "\n".join(back.words(scrubber({SECRET})))
    assert SECRET not in said and "token ••••••" in said
    for raw in ("\x1b", "\x07", "\u202e", "a\nb"):
        assert raw not in said, (raw, said)
    assert "\\x1b]52" in said and "a\\nb" in said  # named, visibly
    assert not any(name.startswith("everything/") for name in handover.files_of(home) or {})


def test_the_homes_own_files_are_named_before_deep_ones(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    login = login_running(tmp_path, 'mkdir -p "$HERMES_HOME/hermes-agent/scripts/bridge/node_modules/a"\n'
                                    'for n in 1 2 3 4 5 6 7 8 9; do : > "$HERMES_HOME/hermes-agent/scripts/bridge/'
                                    'node_modules/a/m$n.js"; done\n'
                                    'echo "X=1" > "$HERMES_HOME/.env"\nmkdir -p "$HERMES_HOME/platforms/s"\n'
                                    ': > "$HERMES_HOME/platforms/s/creds.json"\n')
    back, _ = run(login, home)
    assert back.words()[-1] == ("11 files in the home changed while it ran: .env, platforms/s/creds.json, "
                                "hermes-agent/scripts/bridge/node_modules/a/m1.js, "
                                "hermes-agent/scripts/bridge/node_modules/a/m2.js, "
                                "hermes-agent/scripts/bridge/node_modules/a/m3.js, "
                                "hermes-agent/scripts/bridge/node_modules/a/m4.js, "
                                "hermes-agent/scripts/bridge/node_modules/a/m5.js, "
                                "hermes-agent/scripts/bridge/node_modules/a/m6.js and 3 more.")


def test_the_last_lines_are_those_left_on_the_screen():
    """Escapes dropped, a line redrawn after CR kept as redrawn, a full-screen menu gone with its alternate screen."""
    output = (b"before\r\n\x1b[?1049h\x1b[2J\x1b[3;4H(o) Telegram\r\n\x1b[?1049l\x1b[33mChoose:\x1b[0m\r\n"
              b"Downloading 10%\rDownloading 100%\r\n\r\n")
    assert handover.last_lines(output) == ("before", "Choose:", "Downloading 100%")


def test_a_home_too_large_to_compare_says_so(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    for n in range(12):
        (home / f"f{n}").write_text("")
    monkeypatch.setattr(handover, "MOST_FILES", 10)
    back, _ = run(login_running(tmp_path, "exit 3\n"), home)
    assert back.code == 3 and back.wrote is None
    assert back.words()[-1] == "The home's files were not compared (too many, or not readable)."


def test_a_login_that_cannot_start_is_said_not_raised(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    login = Login("weixin", (str(tmp_path / "missing" / "hermes"), "gateway", "setup"), {"PATH": "/usr/bin"}, "")
    back, _ = run(login, home)
    assert back.code is None and "did not run: No such file or directory" in back.ended()
