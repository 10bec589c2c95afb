"""The plain face (wizard/faces/plain/), driven as prompt_toolkit tests its own prompts: keys into a pipe input,
drawing into a DummyOutput.  Setup from an empty home and the doctor's repair of the demo home are checked
afterwards with the real Hermes 0.19.0; Ctrl-C before apply leaves every byte and mode as it was."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from hermes_wizard.faces.plain import CANCELLED, run_plain

TOKEN = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"
DOWN, CTRL_C, CTRL_U = "\x1b[B", "\x03", "\x15"


@contextlib.contextmanager
def keys(*typed: str):
    """Every key sent up front: prompt_toolkit keeps what one prompt did not read for the next."""
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(typed))
        yield


def plain(command: str, home: Path, *typed: str, ssh=False, echo_hidden=True) -> int:
    with keys(*typed):
        return run_plain(command, home, ssh=ssh, echo_hidden=echo_hidden, width=80)


def tree(home: Path) -> dict:
    """Every path under `home` with its bytes and mode (what "nothing was written" means)."""
    if not home.exists():
        return {}
    return {str(p.relative_to(home)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode)
            for p in sorted(home.rglob("*"))} | {".": (None, home.stat().st_mode)}


def test_setup_from_an_empty_home_enables_telegram_with_pairing(tmp_path, capsys, hermes_oracle):
    home = tmp_path / "home"
    # platform (typed to filter), token (masked), access: pairing, IDs: none, review, apply
    rc = plain("setup", home, "telegram\r", TOKEN + "\r", "\r", "\r", "review\r", "y\r")
    out = capsys.readouterr().out
    assert rc == 0
    assert "TELEGRAM_BOT_TOKEN=••••••" in out  # the review's masked diff
    assert "After these changes: the gateway will start (telegram)." in out
    assert "Verified: the gateway will start (telegram)." in out
    assert "Pairing (recommended). A stranger who messages the bot gets a one-time code" in out
    assert TOKEN not in out
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()
    assert (home / ".env").stat().st_mode & 0o777 == 0o600
    hermes = hermes_oracle.evaluate(home)
    assert hermes["would_start"] and hermes["enabled"] == ["telegram"]


def test_a_token_that_cannot_be_right_is_refused_at_the_prompt(tmp_path, capsys):
    home = tmp_path / "home"
    rc = plain("setup", home, "telegram\r", "not-a-token\r", CTRL_U, TOKEN + "\r", "\r", "\r", "review\r", "y\r")
    assert rc == 0
    env = (home / ".env").read_text()
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in env and "not-a-token" not in env


def test_open_needs_the_platforms_name_typed_and_review_says_it_is_open(tmp_path, capsys):
    home = tmp_path / "home"
    open_choice = DOWN * 2 + "\r"  # pairing, allowlist, open
    rc = plain("setup", home, "telegram\r", TOKEN + "\r",
               open_choice, "Telegram\r",  # not its name: refused, asked again
               "\r", "telegram\r", "review\r", "y\r")  # open again (the cursor stays on it), its name
    out = capsys.readouterr().out
    assert rc == 0
    assert "Type telegram to confirm that anyone who can reach it may use the agent." in out
    assert "Open to everyone: telegram" in " ".join(out.split())
    assert "TELEGRAM_ALLOW_ALL_USERS=true" in (home / ".env").read_text()


def test_the_platform_list_says_what_is_on_disk(demo, capsys):
    rc = plain("setup", demo, "whatsapp\r", "\r", CTRL_C)  # into WhatsApp; its state, then Ctrl-C at access
    out = capsys.readouterr()
    assert rc == 130 and CANCELLED in out.err
    assert "On disk: no creds.json in ~/" in out.out or "On disk: no creds.json in /" in out.out
    assert "Fix: run `hermes whatsapp` and scan the QR code" in out.out


def test_doctor_repairs_the_demo_home_and_hermes_agrees(demo, capsys, hermes_oracle):
    # open policies → pairing (default), dead transports → disabled (default), review, apply
    rc = plain("doctor", demo, "\r", "\r", "\r", "y\r")
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "HW101" in out and "HW201" in out  # the findings first
    assert "After these changes: the gateway will start (telegram, weixin)." in out
    assert "Verified: the gateway will start (telegram, weixin)." in out
    env = (demo / ".env").read_text()
    assert "WEIXIN_DM_POLICY=pairing" in env and "WHATSAPP_ENABLED=false" in env
    assert "ALLOW_ALL_USERS=true" not in env
    hermes = hermes_oracle.evaluate(demo)
    assert hermes["would_start"] and set(hermes["enabled"]) == {"telegram", "weixin"}


def test_doctor_opens_a_platform_only_when_its_name_is_typed(demo, capsys):
    optin = DOWN * 2 + "\r"
    # opt-in chosen, the name not typed, review; Hermes would refuse: only "write anyway" writes it
    rc = plain("doctor", demo, optin, "\r", "\r", "\r", "write anyway\r")
    out = capsys.readouterr().out
    assert "Not opened, its name was not typed: weixin" in out
    assert "WEIXIN_ALLOW_ALL_USERS=true" not in (demo / ".env").read_text()
    assert rc == 78 and "Verdict: the gateway will refuse to start" in out  # the truth, not "Verified"


def test_a_plan_hermes_would_refuse_is_not_applied_by_a_yes(demo, capsys):
    """As a new user met it: "y" (the answer to every other review) is not enough to write a plan Hermes refuses; the
    review says why Apply is off, Enter goes back, and quitting leaves every byte as it was."""
    before = tree(demo)
    optin = DOWN * 2 + "\r"
    rc = plain("doctor", demo, optin, "\r", "\r", "\r", "y\r", "quit\r")
    out = " ".join(capsys.readouterr().out.split())
    assert "Apply is off: with these changes Hermes would refuse to start" in out
    assert rc == 0 and "No changes were made." in out and tree(demo) == before
    assert "'y' is not 'write anyway'" in out  # the mistyped words said, not silently back


def test_review_answered_no_goes_back_and_quitting_writes_nothing(demo, capsys):
    before = tree(demo)
    rc = plain("doctor", demo, "\r", "\r", "\r", "n\r", DOWN * 2 + "\r")  # review, No, then Quit
    assert rc == 0 and "No changes were made." in capsys.readouterr().out
    assert tree(demo) == before


@pytest.mark.parametrize("command, typed", [
    ("setup", ("telegram\r", TOKEN + "\r", "\r", "\r", "review\r", CTRL_C)),  # at the confirmation
    ("setup", ("weixin\r", CTRL_C)),  # in the middle of the credentials
    ("doctor", ("\r", "\r", "\r", CTRL_C)),
])
def test_ctrl_c_before_apply_cancels_and_leaves_the_tree_identical(demo, capsys, command, typed):
    before = tree(demo)
    assert plain(command, demo, *typed) == 130
    assert CANCELLED in capsys.readouterr().err
    assert tree(demo) == before


def test_a_closed_stdin_is_a_cancel_not_a_traceback(tmp_path, capsys):
    home = tmp_path / "home"
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.close()
        assert run_plain("setup", home, ssh=False, echo_hidden=True) == 130
    assert CANCELLED in capsys.readouterr().err and not home.exists()


def test_over_ssh_it_says_where_secrets_go_once(tmp_path, capsys):
    plain("setup", tmp_path / "home", "telegram\r", TOKEN + "\r", "\r", "\r", "review\r", "y\r", ssh=True)
    out = capsys.readouterr().out
    assert out.count("Over SSH: the secrets you type here are written to") == 1
    assert "with mode 0600" in " ".join(out.split())


def test_a_terminal_that_shows_typed_secrets_asks_first(tmp_path, capsys):
    home = tmp_path / "home"
    assert plain("setup", home, "\r", echo_hidden=False) == 1  # default No: cancelled, nothing written
    out = capsys.readouterr()
    assert "cannot turn echo off" in out.out and CANCELLED in out.err and not home.exists()
    rc = plain("setup", home, "y\r", "telegram\r", TOKEN + "\r", "\r", "\r", "review\r", "y\r", echo_hidden=False)
    assert rc == 0 and f"TELEGRAM_BOT_TOKEN={TOKEN}" in (home / ".env").read_text()


def test_what_a_home_holds_is_escaped_in_what_the_prompts_say(demo, capsys):
    """A hostile value in .env (an escape sequence) is shown as an escape, never sent to the terminal raw."""
    env = demo / ".env"
    env.write_text(env.read_text().replace("WHATSAPP_DM_POLICY=open", "WHATSAPP_DM_POLICY=open\x1b]0;pwned\x07"))
    plain("doctor", demo, CTRL_C)
    out = capsys.readouterr().out
    assert "\x1b]" not in out and "\x07" not in out


def test_the_setup_gateway_step_explains_access_and_writes_exactly_the_opt_in(demo, capsys, hermes_oracle):
    """What `hermes setup gateway` runs after Hermes's own WhatsApp step (wizard/faces/hermes_plugin.py)."""
    from hermes_wizard.faces.plain import run_platform_step

    up = "\x1b[A"
    # access: from the current (open) up to pairing; IDs: none; groups: as they are; the demo's weixin still
    # refuses (this step answers for whatsapp only), so the review asks for "write anyway" before it writes
    with keys(up * 2 + "\r", "\r", "\r", "write anyway\r"):
        rc = run_platform_step("whatsapp", demo, width=80)
    out = capsys.readouterr().out
    assert "hermes-wizard: whatsapp as Hermes will see it" in out and "creds.json" in out
    assert "Pairing (recommended)" in out and "After these changes" in out
    env = (demo / ".env").read_text()
    assert "WHATSAPP_DM_POLICY=pairing" in env
    assert "WHATSAPP_ALLOW_ALL_USERS=true" not in env and "GATEWAY_ALLOW_ALL_USERS" not in env
    assert rc == 78 and "Verdict: the gateway will refuse to start — Hermes stops at weixin" in " ".join(out.split())
    hermes = hermes_oracle.evaluate(demo)
    assert "whatsapp" not in (hermes["refusal_reason"] or "")


def test_save_answers_records_an_interactive_setup_without_its_secret(tmp_path, capsys, monkeypatch):
    """setup --save-answers FILE in the plain face: the answers file replays the same home, the token by name."""
    import subprocess
    import sys

    home, saved = tmp_path / "home", tmp_path / "answers.yaml"
    with keys("telegram\r", TOKEN + "\r", "\r", "\r", "review\r", "y\r"):
        rc = run_plain("setup", home, ssh=False, echo_hidden=True, width=80, save_answers=str(saved))
    assert rc == 0 and "Answers:" in capsys.readouterr().out
    text = saved.read_text()
    assert TOKEN not in text and "from_env: TELEGRAM_BOT_TOKEN" in text and saved.stat().st_mode & 0o777 == 0o600
    replay = tmp_path / "replay"
    run = subprocess.run([sys.executable, "-m", "hermes_wizard", "setup", "--answers", str(saved),
                          "--home", str(replay)], capture_output=True, text=True, timeout=60,
                         env={"TELEGRAM_BOT_TOKEN": TOKEN, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert (replay / ".env").read_bytes() == (home / ".env").read_bytes()


def test_the_group_choices_say_what_the_judged_hermes_does_with_groups(demo, capsys):
    """The group policies are worded from the access model (wizard/faces/choice_words.py): Hermes 0.19 drops every
    WhatsApp group message under pairing, and its group allowlist names chats — never "people approved by pairing"."""
    from hermes_wizard.faces.choice_words import NOBODY_IN_GROUPS, group_words
    from hermes_wizard.faces.plain import run_platform_step
    from hermes_wizard.hermes.models import model_of

    up = "\x1b[A"
    with keys(up * 2 + "\r", "\r", "\r", CTRL_C):  # access: pairing; IDs: none; groups: as they are; then Ctrl-C
        run_platform_step("whatsapp", demo, width=80)
    out = " ".join(capsys.readouterr().out.split())
    model = model_of("0.19.0")
    for policy in ("open", "allowlist", "pairing", "disabled"):
        assert group_words(model, "whatsapp", policy, "pairing") in out
    assert f"Pairing: {NOBODY_IN_GROUPS}" in out
    assert "only people approved by pairing are answered" not in out


def test_a_group_allowlist_asks_which_group_chats_and_writes_them(demo, capsys):
    """Choosing "allowlist" for WhatsApp's groups asks the chats it answers (an empty answer is refused, as the
    session refuses a group allowlist of no chat), and the plan writes them where its adapter reads its group list
    (the demo home's other platforms keep the plan from being applied: the review's diff is what it would write)."""
    from hermes_wizard.faces.plain import run_platform_step
    from hermes_wizard.plan.answers import EMPTY_GROUP_ALLOWLIST

    chat = "120363012345678901@g.us"
    up = "\x1b[A"
    with keys(up * 2 + "\r", "\r", "allowlist\r", "\r", "allowlist\r", chat + "\r", "\r"):
        run_platform_step("whatsapp", demo, width=80)
    out = capsys.readouterr().out
    assert EMPTY_GROUP_ALLOWLIST in " ".join(out.split())
    assert "+WHATSAPP_GROUP_POLICY=allowlist" in out and f"+      group_allow_from: {chat}" in out, out
