"""`setup --platform … ` flags (wizard/faces/setup_flags.py): the same answers as a file, the same files
written; never a prompt without a terminal; open needs --i-understand-open naming the platform; and the
Session's group policy (wizard/plan/session.py set_group) that both paths rely on."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
import yaml

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.changes import ENV, planned_contents
from hermes_wizard.plan.session import AnswerError, Session
from unit.test_answers_file import DEMO, TG, WX, tree, wizard

ACCOUNT = "b0f3c2d1e9@im.bot"


def demo_copy(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    return home


def home_files(home: Path) -> dict[str, bytes]:
    return {name: data for name, data in tree(home).items() if not name.startswith(".wizard-backups")}


def test_flags_write_exactly_what_the_same_answers_file_writes(tmp_path):
    by_flags, by_file = demo_copy(tmp_path, "flags"), demo_copy(tmp_path, "file")
    flags = wizard("setup", "--home", str(by_flags), "--platform", "weixin", "--token-stdin",
                   "--env", f"WEIXIN_ACCOUNT_ID={ACCOUNT}", "--policy", "pairing", "--group-policy", "disabled",
                   "--allow", "o9cq80abc@im.wechat", "--disable", "whatsapp", "--detailed-exitcode", stdin=WX + "\n")
    assert flags.returncode == 2, flags.stdout + flags.stderr
    answers = tmp_path / "same.yaml"
    answers.write_text(f"platforms:\n  weixin:\n    env: {{WEIXIN_ACCOUNT_ID: '{ACCOUNT}', WEIXIN_TOKEN: {{from_env: "
                       "MY_WEIXIN_TOKEN}}\n    dm_policy: pairing\n    group_policy: disabled\n    allowed_users: "
                       "[o9cq80abc@im.wechat]\n  whatsapp:\n    enabled: false\n")
    by_answers = wizard("setup", "--home", str(by_file), "--answers", str(answers), "--detailed-exitcode")
    assert by_answers.returncode == 2, by_answers.stdout + by_answers.stderr
    assert home_files(by_flags) == home_files(by_file)
    assert f"WEIXIN_TOKEN={WX}" in (by_flags / ".env").read_text()
    for done in (flags, by_answers):
        assert WX not in done.stdout + done.stderr
    assert wizard("check", "--home", str(by_flags)).returncode == 0


def test_one_platform_flags_from_an_empty_home_and_their_saved_answers(tmp_path):
    home, saved = tmp_path / "home", tmp_path / "saved.yaml"
    done = wizard("setup", "--home", str(home), "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN",
                  "--allow", "123456789", "--save-answers", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    env = (home / ".env").read_text()
    assert f"TELEGRAM_BOT_TOKEN={TG}" in env and "TELEGRAM_ALLOWED_USERS=123456789" in env
    text = saved.read_text()
    assert TG not in text and TG not in done.stdout + done.stderr
    assert yaml.safe_load(text)["platforms"]["telegram"]["env"] == {
        "TELEGRAM_BOT_TOKEN": {"from_env": "MY_TELEGRAM_BOT_TOKEN"}}
    again = wizard("setup", "--home", str(home), "--answers", str(saved), "--detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr


@pytest.mark.parametrize(("argv", "words"), [
    (["--platform", "telegram", "--policy", "open"], "add --i-understand-open telegram"),
    (["--platform", "telegram", "--policy", "open", "--i-understand-open", "weixin"], "must name the platform"),
    (["--platform", "telegram", "--i-understand-open", "telegram"], "only with --policy open"),
    (["--allow", "123456789"], "name it with --platform"),
    (["--platform", "line", "--token-from-env", "X"], "several secrets"),
    (["--platform", "whatsapp", "--token-from-env", "X"], "has no token"),
    (["--platform", "telegram", "--env", f"TELEGRAM_BOT_TOKEN={TG}"], "never given on the command line"),
    (["--platform", "tg", "--allow", "1"], "did you mean telegram"),
    (["--platform", "telegram", "--disable", "telegram"], "configured with --platform"),
    (["--answers", "x.yaml", "--platform", "telegram"], "cannot be combined"),
    (["--dry-run"], "nothing is declared"),
    (["--platform", "telegram", "--policy", "allowlist"], "at least one ID"),
])
def test_bad_flags_are_refused_with_the_flag_named_and_nothing_written(tmp_path, argv, words):
    home = demo_copy(tmp_path, "home")
    before = tree(home)
    done = wizard("setup", "--home", str(home), *argv)
    assert done.returncode == 2, (argv, done.stdout, done.stderr)
    assert words in done.stderr, (argv, done.stderr)
    assert TG not in done.stderr and "Traceback" not in done.stderr
    assert tree(home) == before


def test_without_a_terminal_token_stdin_never_prompts_or_hangs(tmp_path):
    started = time.monotonic()
    done = wizard("setup", "--home", str(tmp_path / "home"), "--platform", "telegram", "--token-stdin", stdin="")
    assert time.monotonic() - started < 20
    assert done.returncode == 2 and "stdin gave no token" in done.stderr
    assert not (tmp_path / "home").exists()


def test_an_open_policy_by_flags_writes_only_the_platforms_own_opt_in(tmp_path):
    home = tmp_path / "home"
    done = wizard("setup", "--home", str(home), "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN",
                  "--policy", "open", "--i-understand-open", "telegram")
    assert done.returncode == 0, done.stdout + done.stderr
    env = (home / ".env").read_text()
    assert "TELEGRAM_ALLOW_ALL_USERS=true" in env and "GATEWAY_ALLOW_ALL_USERS" not in env
    assert "Open to everyone: telegram" in done.stdout


def test_the_session_writes_a_group_policy_and_an_open_group_needs_the_name(tmp_path):
    session = Session(evaluate(demo_copy(tmp_path, "home")))
    with pytest.raises(AnswerError):
        session.set_group("telegram", "disabled")  # no group policy in Hermes
    with pytest.raises(AnswerError):
        session.set_group("weixin", "open")
    session.set_access("weixin", "pairing")
    session.set_group("weixin", "disabled")
    text = planned_contents(session.plan())[ENV].decode()
    assert "WEIXIN_GROUP_POLICY=disabled" in text and "WEIXIN_ALLOW_ALL_USERS=true" not in text
    session.set_group("weixin", "open", confirm="weixin")
    text = planned_contents(session.plan())[ENV].decode()
    assert "WEIXIN_GROUP_POLICY=open" in text and "WEIXIN_ALLOW_ALL_USERS=true" in text
    assert "WEIXIN_DM_POLICY=pairing" in text


@pytest.mark.parametrize("detailed", ["--detailed-exitcode", "--detailed", None])
def test_a_mistyped_flag_never_reads_as_changed_under_detailed_exitcode(tmp_path, detailed):
    """Under --detailed-exitcode exit 2 means "changes applied" (an Ansible task would report changed):
    the parser's own usage error is 1 there, as every other bad input already is; 2 without it."""
    home = demo_copy(tmp_path, "home")
    before = tree(home)
    done = wizard("setup", "--home", str(home), "--platform", "telegram", "--alow", "1",
                  *([detailed] if detailed else []))
    assert "usage:" in done.stderr and "--alow" in done.stderr
    assert done.returncode == (1 if detailed else 2)
    assert tree(home) == before


@pytest.mark.parametrize(("argv", "words"), [
    (["--platform", "telegram", "--platform", "weixin", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN"],
     "telegram has none"),
    (["--platform", "telegram", "--allow", "123456789", "--platform", "telegram", "--policy", "pairing"],
     "--platform telegram is given twice"),
    (["--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN", "--token-from-env", "MY_WEIXIN_TOKEN"],
     "--token-from-env is given twice with different values"),
    (["--token-from-env", "MY_TELEGRAM_BOT_TOKEN", "--platform", "telegram"], "name it with --platform before them"),
    (["--platform", "telegram", "--token-stdin", "--platform", "weixin", "--token-stdin"], "stdin holds one token"),
])
def test_flags_that_could_be_misread_are_a_usage_error_never_a_silent_last_wins(tmp_path, argv, words):
    """As a new user met it: the token exported for Telegram was written as WEIXIN_TOKEN (the last --platform won, the
    flags went with it).  Whose flag it is is never guessed: exit 2, the reason named, nothing written."""
    for start in ("empty", "demo"):
        home = demo_copy(tmp_path, start) if start == "demo" else tmp_path / start
        before = tree(home)
        done = wizard("setup", "--home", str(home), *argv)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert words in done.stderr, (argv, done.stderr)
        assert "Traceback" not in done.stderr and TG not in done.stdout + done.stderr
        assert tree(home) == before


def test_each_platforms_flags_are_the_ones_after_it(tmp_path):
    """Several --platform in one run: each takes the flags after it, and the files are exactly what the same
    declaration as an answers file writes (Telegram's token as TELEGRAM_BOT_TOKEN, Weixin's as WEIXIN_TOKEN)."""
    by_flags, by_file = tmp_path / "flags", tmp_path / "file"
    done = wizard("setup", "--home", str(by_flags),
                  "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN",
                  "--allow", "123456789", "--platform", "weixin", "--token-from-env", "MY_WEIXIN_TOKEN",
                  "--env", f"WEIXIN_ACCOUNT_ID={ACCOUNT}", "--policy", "pairing")
    assert done.returncode == 0, done.stdout + done.stderr
    answers = tmp_path / "answers.yaml"
    answers.write_text("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: MY_TELEGRAM_BOT_TOKEN}}\n"
                       "    allowed_users: ['123456789']\n"
                       "  weixin:\n"
                       f"    env: {{WEIXIN_TOKEN: {{from_env: MY_WEIXIN_TOKEN}}, WEIXIN_ACCOUNT_ID: '{ACCOUNT}'}}\n"
                       "    dm_policy: pairing\n")
    done = wizard("setup", "--home", str(by_file), "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert home_files(by_flags) == home_files(by_file)
    env = (by_flags / ".env").read_text()
    assert f"TELEGRAM_BOT_TOKEN={TG}" in env and f"WEIXIN_TOKEN={WX}" in env and f"WEIXIN_TOKEN={TG}" not in env
