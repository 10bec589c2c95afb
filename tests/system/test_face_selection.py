"""Which face `setup` and `doctor` get (wizard/faces/terminal.py): the TUI only on a full terminal, plain prompts
on a dumb or small one, and with no terminal at all no question and no hang — what was found and the exact
commands that need no terminal, exit 2."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hermes_wizard.faces.terminal import NONE, PLAIN, TUI, TerminalFacts, choose_face, echo_can_be_hidden, over_ssh

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def facts(stdin=True, stderr=True, term="xterm-256color", size=(80, 24)) -> TerminalFacts:
    return TerminalFacts(stdin, stderr, term, size)


@pytest.mark.parametrize("given, plain, face", [
    (facts(), False, TUI),
    (facts(), True, PLAIN),  # --plain
    (facts(term="dumb"), False, PLAIN),
    (facts(term=""), False, PLAIN),
    (facts(size=(50, 15)), False, PLAIN),
    (facts(size=(59, 40)), False, PLAIN),
    (facts(size=(120, 19)), False, PLAIN),
    (facts(size=(60, 20)), False, TUI),  # the smallest the screens are drawn for
    (facts(size=None), False, PLAIN),
    (facts(stderr=False), False, PLAIN),  # Textual draws on stderr
    (facts(stdin=False), False, NONE),  # a pipe, /dev/null, CI
    (facts(stdin=False), True, NONE),
])
def test_the_face_follows_the_terminal(given, plain, face):
    assert choose_face(given, plain=plain) == face


def test_ssh_is_seen_from_any_of_sshds_variables():
    assert not over_ssh({"TERM": "xterm"})
    for name in ("SSH_CONNECTION", "SSH_TTY", "SSH_CLIENT"):
        assert over_ssh({name: "127.0.0.1 5555 127.0.0.1 22"})


def test_echo_cannot_be_hidden_on_what_is_not_a_terminal(tmp_path):
    read, write = os.pipe()
    try:
        assert not echo_can_be_hidden(read)
    finally:
        os.close(read), os.close(write)
    primary, secondary = os.openpty()
    try:
        assert echo_can_be_hidden(secondary)
    finally:
        os.close(primary), os.close(secondary)


def run_wizard(args, tmp_path, timeout=1.0, **env) -> subprocess.CompletedProcess:
    environ = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "PYTHONPATH": str(REPO),
               **env}
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], cwd=REPO, env=environ, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_setup_without_a_terminal_prints_what_was_found_and_the_commands_within_a_second(tmp_path):
    home = tmp_path / "my home"
    shutil.copytree(DEMO, home)
    started = time.monotonic()
    proc = run_wizard(["setup", "--home", str(home)], tmp_path, TERM="xterm-256color")
    assert time.monotonic() - started < 1.0
    assert proc.returncode == 2
    assert "Verdict: the gateway will refuse to start" in proc.stdout  # what `check` says, as it says it
    assert "HW101" in proc.stdout and "HW201" in proc.stdout
    quoted = f"'{home}'"
    assert f"hermes-wizard setup --home {quoted} --answers FILE.yaml" in proc.stderr
    assert f"hermes-wizard setup --home {quoted} --platform telegram --token-from-env" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_setup_without_a_terminal_on_a_home_not_made_yet(tmp_path):
    proc = run_wizard(["setup", "--home", str(tmp_path / "new")], tmp_path)
    assert proc.returncode == 2 and "(not created yet)" in proc.stdout and "--answers FILE.yaml" in proc.stderr
    assert not (tmp_path / "new").exists()


def test_doctor_without_a_terminal_still_prints_its_plan(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    proc = run_wizard(["doctor", "--home", str(home)], tmp_path, timeout=20)
    assert proc.returncode == 1 and "+WEIXIN_DM_POLICY=pairing" in proc.stdout
    assert "hermes-wizard doctor --fix" in proc.stdout


@needs_tmux
@pytest.mark.tmux
@pytest.mark.parametrize("term, size", [("dumb", (100, 30)), ("screen", (50, 15))])
def test_a_dumb_or_small_terminal_gets_plain_prompts(tmp_path, term, size):
    from tmux_plain import PlainPane

    pane = PlainPane(f"hwface-{term}-{tmp_path.name}", ["setup", "--home", str(tmp_path / "home")], tmp_path,
                     size=size, term=term)
    try:
        screen = pane.wait_for("Choose a platform")
        assert "» " in screen and "palette" not in screen  # questionary's pointer, not Textual's footer
        pane.type("\x03", enter=False)
        assert pane.exit_code() == 130
        assert "Cancelled. No changes were made." in pane.screen()
    finally:
        pane.close()
    assert not (tmp_path / "home").exists()


@needs_tmux
@pytest.mark.tmux
@pytest.mark.parametrize("state, opens", [("missing", "setup"), ("only Hermes's code", "setup"), ("demo", "doctor")])
def test_hermes_wizard_alone_opens_the_wizard_the_home_needs(tmp_path, state, opens):
    """`hermes-wizard` with no command, on a terminal: setup for a home that is missing or holds neither .env nor
    config.yaml (a fresh install keeps only Hermes's own code there), the doctor on the findings otherwise."""
    from tmux_plain import PlainPane

    home = tmp_path / "hermes-home"
    if state == "demo":
        shutil.copytree(DEMO, home)
    elif state != "missing":
        (home / "hermes-agent").mkdir(parents=True)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    pane = PlainPane(f"hwbare-{opens}-{len(state)}-{os.getpid()}", [], tmp_path, size=(100, 30), term="screen",
                     wrapper=["env", f"HERMES_HOME={home}", "sh", "-c"])
    try:
        screen = pane.wait_for("palette")
        if opens == "setup":
            assert "Continue" in pane.wait_for("Continue") and "r Review" not in screen, screen
        else:
            assert "Open policies without opt-in become" in pane.wait_for("r Review"), screen
        time.sleep(1.0)  # under load the first paint comes well before the key bindings are live
        subprocess.run(["tmux", "send-keys", "-t", pane.name, "C-q"], check=True)
        if opens == "doctor":  # its repair is planned: quitting asks first
            pane.wait_for("changes? Nothing has been written yet.")
            pane.type("d", enter=False)
        assert pane.exit_code() == 0
        assert "No changes were made." in pane.screen()
    finally:
        pane.close()
    assert sorted(str(p) for p in tmp_path.rglob("*") if p.name != "exit-code") == before
