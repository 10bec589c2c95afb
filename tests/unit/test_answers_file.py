"""`setup --answers FILE` (wizard/faces/declared.py): a declared configuration applied without prompts,
run as a user runs it (`python -m hermes_wizard` in a subprocess), the result judged by the real Hermes 0.19.0.

Valid file from an empty home; every invalid path names the file and line and writes nothing (exit 2);
hostile YAML refused; idempotent re-apply with --detailed-exitcode (2, then 0); secrets read from the
environment and never in the saved answers file, the plan printout or the output; open without
`allow_all: true` refused; a plan Hermes would refuse is never written."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import oracle
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "homes" / "death-loop"
TG = "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm"
WX = "wx-secret-token-0000000000000000aaaa"
SECRETS = (TG, WX)
TELEGRAM_AND_WEIXIN_ANSWERS = """\
platforms:
  telegram:
    enabled: true
    env: {TELEGRAM_BOT_TOKEN: {from_env: MY_TELEGRAM_BOT_TOKEN}}
    allowed_users: ["123456789"]
  weixin:
    enabled: true
    env: {WEIXIN_ACCOUNT_ID: "b0f3c2d1e9@im.bot", WEIXIN_TOKEN: {from_env: MY_WEIXIN_TOKEN}}
    dm_policy: pairing
    group_policy: disabled
"""


def wizard(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("HERMES_HOME", "MY_TELEGRAM_BOT_TOKEN", "MY_WEIXIN_TOKEN")}
    base.update({"PYTHONPATH": str(ROOT), "MY_TELEGRAM_BOT_TOKEN": TG, "MY_WEIXIN_TOKEN": WX} | (env or {}))
    return subprocess.run([sys.executable, "-m", "hermes_wizard", *args], cwd=ROOT, env=base, capture_output=True,
                          text=True, timeout=60, input=stdin if stdin is not None else "")


def tree(home: Path) -> dict[str, bytes]:
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()} \
        if home.exists() else {}


@pytest.fixture
def answers(tmp_path):
    def write(text: str, name: str = "answers.yaml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path
    return write


@pytest.mark.oracle
def test_the_two_platform_answers_from_an_empty_home_are_what_hermes_runs(tmp_path, answers):
    oracle.require_oracle()
    home = tmp_path / "home"
    done = wizard("setup", "--answers", str(answers(TELEGRAM_AND_WEIXIN_ANSWERS)), "--home", str(home))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Verified: the gateway will start (telegram, weixin)." in done.stdout
    assert "Backup:" in done.stdout
    env = (home / ".env").read_text()
    assert f"TELEGRAM_BOT_TOKEN={TG}" in env and f"WEIXIN_TOKEN={WX}" in env
    assert stat.S_IMODE((home / ".env").stat().st_mode) == 0o600
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr
    hermes = oracle.evaluate_batch([home], tmp_path / "oracle")[0]
    assert hermes["would_start"] is True and not hermes["error"], hermes
    assert set(hermes["enabled"]) == {"telegram", "weixin"}
    assert hermes["debug"]["extra"]["weixin"]["dm_policy"] == "pairing"
    assert hermes["debug"]["extra"]["weixin"]["group_policy"] == "disabled"
    assert "TELEGRAM_ALLOWED_USERS=123456789" in env  # the probe reports policies, not allowlists


def test_applying_the_same_answers_twice_changes_nothing_the_second_time(tmp_path, answers):
    home, path = tmp_path / "home", answers(TELEGRAM_AND_WEIXIN_ANSWERS)
    first = wizard("setup", "--answers", str(path), "--home", str(home), "--detailed-exitcode")
    assert first.returncode == 2, first.stdout + first.stderr
    written = tree(home)
    second = wizard("setup", "--answers", str(path), "--home", str(home), "--detailed-exitcode")
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Nothing to change" in second.stdout and "Backup:" not in second.stdout
    assert tree(home) == written  # not even a new backup


def test_on_the_demo_home_answers_that_close_every_open_policy_make_it_start(tmp_path, answers):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    (home / ".env").chmod(0o600)
    text = "platforms:\n  weixin: {dm_policy: pairing}\n  whatsapp: {enabled: false}\n"
    done = wizard("setup", "--answers", str(answers(text)), "--home", str(home), "--detailed-exitcode")
    assert done.returncode == 2, done.stdout + done.stderr
    check = wizard("check", "--home", str(home))
    assert check.returncode == 0, check.stdout


def test_answers_after_which_hermes_would_refuse_are_never_written(tmp_path, answers):
    """The demo home refuses (weixin and whatsapp open); answering only telegram leaves it refusing."""
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    before = tree(home)
    text = "platforms:\n  telegram:\n    allowed_users: ['123456789', '987654321']\n"
    done = wizard("setup", "--answers", str(answers(text)), "--home", str(home))
    assert done.returncode == 78, done.stdout + done.stderr
    assert "Nothing was written" in done.stdout
    assert tree(home) == before


def test_dry_run_prints_the_masked_plan_and_writes_nothing(tmp_path, answers):
    home = tmp_path / "home"
    done = wizard("setup", "--answers", str(answers(TELEGRAM_AND_WEIXIN_ANSWERS)), "--home", str(home), "--dry-run",
                  "--detailed-exitcode")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "+WEIXIN_GROUP_POLICY=disabled" in done.stdout and "Dry run: nothing was written." in done.stdout
    assert "After these changes: the gateway will start (telegram, weixin)." in done.stdout
    for secret in SECRETS:
        assert secret not in done.stdout + done.stderr
    assert not home.exists()


INVALID = {
    "unknown platform": ("platforms:\n  telegram: {}\n  telegarm: {enabled: true}\n", 3, "did you mean telegram"),
    "unknown key": ("platforms:\n  telegram:\n    enabled: true\n    allowed_user: ['1']\n", 4,
                    "did you mean allowed_users"),
    "wrong type": ("platforms:\n  telegram:\n    enabled: 'maybe'\n", 3, "expected true or false"),
    "not a list": ("platforms:\n  telegram:\n    allowed_users: 123456789\n", 3, "expected a list of IDs"),
    "bad policy": ("platforms:\n  weixin:\n    dm_policy: everyone\n", 3, "expected one of pairing, allowlist, open"),
    "literal secret": (f"platforms:\n  telegram:\n    env:\n      TELEGRAM_BOT_TOKEN: '{TG}'\n", 4,
                       "a secret is never written in an answers file"),
    "from_env unset": ("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: UNSET_TELEGRAM_BOT_TOKEN}}\n",
                       3,
                       "from_env UNSET_TELEGRAM_BOT_TOKEN is not set"),
    "foreign env key": ("platforms:\n  telegram:\n    env: {WEIXIN_TOKEN: {from_env: MY_WEIXIN_TOKEN}}\n", 3,
                        "expected one of: TELEGRAM_BOT_TOKEN"),
    "access env key": ("platforms:\n  weixin:\n    env: {WEIXIN_DM_POLICY: open}\n", 3, "use dm_policy"),
    "open without allow_all": ("platforms:\n  telegram:\n    dm_policy: open\n", 3, "allow_all: true"),
    "allow_all alone": ("platforms:\n  telegram:\n    allow_all: true\n", 3, "goes only with `dm_policy: open`"),
    "allowlist of nobody": ("platforms:\n  telegram:\n    dm_policy: allowlist\n", 3, "at least one ID"),
    "star": ("platforms:\n  telegram:\n    allowed_users:\n      - '*'\n", 4, "that is an open policy"),
    "group on telegram": ("platforms:\n  telegram:\n    group_policy: open\n", 3, "has no group policy"),
    "disabled with more": ("platforms:\n  whatsapp:\n    enabled: false\n    dm_policy: pairing\n", 4,
                           "takes no other setting"),
    "duplicate key": ("platforms:\n  telegram: {}\n  telegram: {}\n", 3, "given twice (first at line 2)"),
    "bad token shape": ("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: BAD_TELEGRAM_BOT_TOKEN}}\n",
                        3,
                        "a Telegram token looks like"),
    "not yaml": ("platforms:\n  telegram:\n    enabled: true\n   bad: [\n", 4, "not valid YAML"),
    "alias bomb": ("a: &a ['x','x']\nb: &b [*a,*a]\nc: [*b,*b]\n", 1, "anchors and aliases"),
    "tag": ("platforms: !!python/object:os.system {}\n", 1, "YAML tags"),
    "deep": ("platforms: " + "[" * 40 + "]" * 40 + "\n", 1, "nested 9 levels deep"),
    "two documents": ("platforms: {}\n---\nplatforms: {}\n", 2, "more than one YAML document"),
    "top level list": ("- telegram\n", 1, "expected a mapping"),
}


@pytest.mark.parametrize("case", list(INVALID))
def test_an_invalid_answers_file_names_file_and_line_and_writes_nothing(tmp_path, answers, case):
    text, line, words = INVALID[case]
    path = answers(text)
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    before = tree(home)
    done = wizard("setup", "--answers", str(path), "--home", str(home), env={"BAD_TELEGRAM_BOT_TOKEN": "not-a-token"})
    assert done.returncode == 2, (case, done.stdout, done.stderr)
    assert f"{path}:{line}: " in done.stderr and words in done.stderr, (case, done.stderr)
    assert "nothing was written" in done.stderr and "Traceback" not in done.stderr
    assert tree(home) == before
    detailed = wizard("setup", "--answers", str(path), "--home", str(home), "--detailed-exitcode",
                      env={"BAD_TELEGRAM_BOT_TOKEN": "not-a-token"})
    assert detailed.returncode == 1  # 2 means "changed" under --detailed-exitcode


def test_every_problem_is_reported_at_once_in_line_order(tmp_path, answers):
    text = "platforms:\n  telegarm: {}\n  telegram:\n    dm_policy: open\n  weixin:\n    colour: red\nextra: 1\n"
    done = wizard("setup", "--answers", str(answers(text)), "--home", str(tmp_path / "home"))
    lines = [ln for ln in done.stderr.splitlines() if "answers.yaml:" in ln]
    assert [int(ln.split("answers.yaml:")[1].split(":")[0]) for ln in lines] == [2, 4, 6, 7], done.stderr


def test_hostile_files_are_refused_without_hanging_or_reading_them_whole(tmp_path, answers):
    huge = answers("platforms: {}\n" + "#" * (300 * 1024) + "\n", "huge.yaml")
    done = wizard("setup", "--answers", str(huge), "--home", str(tmp_path / "home"))
    assert done.returncode == 2 and "at most 262144 bytes" in done.stderr
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    done = wizard("setup", "--answers", str(fifo), "--home", str(tmp_path / "home"))
    assert done.returncode == 2 and "not a regular file" in done.stderr
    escape = answers("platforms:\n  \"tele\\e]52;c;AAAA\\a\": {}\n", "esc.yaml")
    done = wizard("setup", "--answers", str(escape), "--home", str(tmp_path / "home"))
    assert done.returncode == 2 and "\x1b" not in done.stderr and "\\x1b" in done.stderr


def test_open_is_written_only_with_allow_all_spelled_out_and_only_the_platforms_own(tmp_path, answers):
    home = tmp_path / "home"
    text = ("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: MY_TELEGRAM_BOT_TOKEN}}\n"
            "    dm_policy: open\n    allow_all: true\n")
    done = wizard("setup", "--answers", str(answers(text)), "--home", str(home))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Open to everyone: telegram" in done.stdout
    env = (home / ".env").read_text()
    assert "TELEGRAM_ALLOW_ALL_USERS=true" in env and "GATEWAY_ALLOW_ALL_USERS" not in env


def test_an_open_group_gets_the_platforms_opt_in_so_hermes_starts(tmp_path, answers):
    """Weixin DMs by pairing, groups open: Hermes's startup rule demands WEIXIN_ALLOW_ALL_USERS for the open
    group (Hermes's own wizard writes `false` here and loops); the file must say allow_all: true."""
    home = tmp_path / "home"
    text = ("platforms:\n  weixin:\n"
            "    env: {WEIXIN_ACCOUNT_ID: b0f3@im.bot, WEIXIN_TOKEN: {from_env: MY_WEIXIN_TOKEN}}\n"
            "    dm_policy: pairing\n    group_policy: open\n")
    refused = wizard("setup", "--answers", str(answers(text)), "--home", str(home))
    assert refused.returncode == 2 and "allow_all: true" in refused.stderr
    done = wizard("setup", "--answers", str(answers(text + "    allow_all: true\n")), "--home", str(home))
    assert done.returncode == 0, done.stdout + done.stderr
    env = (home / ".env").read_text()
    assert "WEIXIN_GROUP_POLICY=open" in env and "WEIXIN_ALLOW_ALL_USERS=true" in env
    assert "WEIXIN_DM_POLICY=pairing" in env
    if oracle.missing_reason() is None:  # and Hermes itself starts it
        assert oracle.evaluate_batch([home], tmp_path / "oracle")[0]["would_start"] is True


def test_a_declared_platform_without_its_credential_gets_checks_finding(tmp_path, answers):
    """Hermes enables telegram from `enabled: true` alone and then fails to connect: the run says so in
    check's words (HW204) instead of a bare success."""
    done = wizard("setup", "--answers", str(answers("platforms:\n  telegram:\n    enabled: true\n")),
                  "--home", str(tmp_path / "home"))
    assert "HW204 telegram: TELEGRAM_BOT_TOKEN not set" in done.stdout, done.stdout + done.stderr
    check = wizard("check", "--home", str(tmp_path / "home"))
    assert done.returncode == check.returncode, (done.stdout, check.stdout)


def test_save_answers_references_secrets_by_name_and_reapplies_to_the_same_home(tmp_path, answers):
    home, saved = tmp_path / "home", tmp_path / "out" / "saved.yaml"
    saved.parent.mkdir()
    done = wizard("setup", "--answers", str(answers(TELEGRAM_AND_WEIXIN_ANSWERS)), "--home", str(home),
                  "--save-answers", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    text = saved.read_text()
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    for secret in SECRETS:
        assert secret not in text
    data = yaml.safe_load(text)
    assert data["platforms"]["telegram"]["env"] == {"TELEGRAM_BOT_TOKEN": {"from_env": "MY_TELEGRAM_BOT_TOKEN"}}
    assert data["platforms"]["weixin"]["env"]["WEIXIN_TOKEN"] == {"from_env": "MY_WEIXIN_TOKEN"}
    assert data["platforms"]["weixin"]["group_policy"] == "disabled"
    again = wizard("setup", "--answers", str(saved), "--home", str(home), "--detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr  # the saved file declares what is there


def test_save_answers_defaults_the_variable_to_the_key_and_writes_through_the_session():
    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.plan.answers_file.session_io import render_answers
    from hermes_wizard.plan.session import Session

    session = Session(evaluate(DEMO))
    session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TG)
    session.set_access("telegram", "allowlist", ["123456789"])
    session.set_access("whatsapp", "disabled")
    text = render_answers(session)
    assert TG not in text
    assert yaml.safe_load(text)["platforms"] == {
        "telegram": {"enabled": True, "env": {"TELEGRAM_BOT_TOKEN": {"from_env": "TELEGRAM_BOT_TOKEN"}},
                     "dm_policy": "allowlist", "allowed_users": ["123456789"]},
        "whatsapp": {"enabled": False}}
