"""A group allowlist names its group chats, written where each adapter reads its group list.

Under group_policy allowlist the WhatsApp, Weixin, WeCom, QQBot and Yuanbao adapters forward only the group
messages of the chats their own group list names: the choice used to write the policy alone (no group answered).
The session now takes the chats (`set_group(platform, "allowlist", chats=[...])`), the plan writes them where the
catalog says that adapter reads them (an env variable where one reaches it, else config.yaml's extra key), and the
flags (`--group-allow CHAT` after `--platform`) and the answers file (`group_chats:`) give them — refusing an empty
list, chats without the allowlist, and any value that could escape its one list entry (a comma, a line break, a
non-string) with a clear message, exit 2, and nothing written.
"""

from __future__ import annotations

import pytest
import yaml

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.answers import EMPTY_GROUP_ALLOWLIST
from hermes_wizard.plan.changes import ENV, YAML, planned_contents
from hermes_wizard.plan.session import AnswerError, Session
from unit.test_answers_file import WX, tree, wizard
from unit.test_setup_flags import ACCOUNT, demo_copy

CHAT = "120363012345678901@g.us"
# where each gated adapter reads its group chat list: (the file, the key the chat is written under)
WHERE = {"weixin": (ENV, "WEIXIN_GROUP_ALLOWED_USERS"), "qqbot": (ENV, "QQ_GROUP_ALLOWED_USERS"),
         "yuanbao": (ENV, "YUANBAO_GROUP_ALLOW_FROM"), "whatsapp": (YAML, "group_allow_from"),
         "wecom": (YAML, "group_allow_from")}
WEIXIN_FLAGS = ("--platform", "weixin", "--token-from-env", "MY_WEIXIN_TOKEN", "--env", f"WEIXIN_ACCOUNT_ID={ACCOUNT}",
                "--policy", "pairing")


@pytest.mark.parametrize("platform", sorted(WHERE))
def test_the_session_writes_the_chats_where_the_adapter_reads_them(tmp_path, platform):
    session = Session(evaluate(tmp_path / "home"))
    session.set_access(platform, "pairing")
    session.set_group(platform, "allowlist", chats=[CHAT, "second-chat"])
    written = planned_contents(session.plan())
    file, key = WHERE[platform]
    if file == ENV:
        assert f"{key}={CHAT},second-chat\n" in written[ENV].decode()
    else:
        extra = yaml.safe_load(written[YAML])["platforms"][platform]["extra"]
        assert extra[key] == f"{CHAT},second-chat", extra


@pytest.mark.parametrize(("policy", "chats", "words"), [
    ("allowlist", [], EMPTY_GROUP_ALLOWLIST),
    ("disabled", [CHAT], "only with the group policy allowlist"),
    ("allowlist", [""], "is not one Weixin (WeChat) group chat ID"),
    ("allowlist", ["a,b\nEVIL=1"], "no commas, spaces or line breaks"),
    ("allowlist", ["a b"], "no commas, spaces or line breaks"),
    ("allowlist", ["*"], "that is the open group policy"),
    ("allowlist", [7], "must be text, not int"),
])
def test_the_session_refuses_chats_it_cannot_write_as_one_entry(tmp_path, policy, chats, words):
    session = Session(evaluate(tmp_path / "home"))
    with pytest.raises(AnswerError) as refused:
        session.set_group("weixin", policy, chats=chats)
    assert words in str(refused.value)
    assert session.answer("weixin").group is None and not session.plan()


def test_group_allow_flags_write_the_chats_and_the_saved_answers_keep_them(tmp_path):
    home, saved = tmp_path / "home", tmp_path / "saved.yaml"
    done = wizard("setup", "--home", str(home), *WEIXIN_FLAGS, "--group-policy", "allowlist",
                  "--group-allow", "1234567890@chatroom", "--group-allow", "42@chatroom", "--save-answers", str(saved))
    assert done.returncode == 0, done.stdout + done.stderr
    env = (home / ".env").read_text()
    assert "WEIXIN_GROUP_POLICY=allowlist" in env
    assert "WEIXIN_GROUP_ALLOWED_USERS=1234567890@chatroom,42@chatroom" in env
    entry = yaml.safe_load(saved.read_text())["platforms"]["weixin"]
    assert entry["group_chats"] == ["1234567890@chatroom", "42@chatroom"], entry
    again = wizard("setup", "--home", str(home), "--answers", str(saved), "--detailed-exitcode")
    assert again.returncode == 0, again.stdout + again.stderr  # the same answers change nothing
    shown = wizard("access", "--home", str(home))
    assert "only the group chats its group list names: 1234567890@chatroom, 42@chatroom" in shown.stdout, shown.stdout


@pytest.mark.parametrize(("argv", "words"), [
    (["--group-policy", "allowlist"], "with --group-allow CHAT"),
    (["--group-allow", "1234567890@chatroom"], "only with --group-policy allowlist"),
    (["--group-policy", "disabled", "--group-allow", "1234567890@chatroom"], "only with --group-policy allowlist"),
    (["--group-policy", "allowlist", "--group-allow", ""], "is not one Weixin (WeChat) group chat ID"),
    (["--group-policy", "allowlist", "--group-allow", "a,b\nEVIL=1"], "no commas, spaces or line breaks"),
    (["--group-policy", "allowlist", "--group-allow", "a,b"], "no commas, spaces or line breaks"),
    (["--group-policy", "allowlist", "--group-allow", "${HOME}"], "letters, digits and @ . _ : + = / - only"),
    (["--group-policy", "allowlist", "--group-allow", "a'b`c\\"], "letters, digits and @ . _ : + = / - only"),
])
def test_bad_group_allow_flags_are_refused_and_nothing_written(tmp_path, argv, words):
    home = demo_copy(tmp_path, "home")
    before = tree(home)
    done = wizard("setup", "--home", str(home), *WEIXIN_FLAGS, *argv)
    assert done.returncode == 2, (argv, done.stdout, done.stderr)
    assert words in done.stderr, (argv, done.stderr)
    assert "Traceback" not in done.stderr and WX not in done.stderr + done.stdout
    assert tree(home) == before


def test_group_allow_for_a_platform_without_a_group_list_is_refused(tmp_path):
    home = demo_copy(tmp_path, "home")
    before = tree(home)
    done = wizard("setup", "--home", str(home), "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN",
                  "--group-policy", "allowlist", "--group-allow", "-1001234567890")
    assert done.returncode == 2 and "has no group policy in Hermes" in done.stderr, done.stderr
    assert tree(home) == before


ANSWERS = ("platforms:\n  weixin:\n    env: {{WEIXIN_ACCOUNT_ID: '{account}', "
           "WEIXIN_TOKEN: {{from_env: MY_WEIXIN_TOKEN}}}}\n    dm_policy: pairing\n{rest}")


@pytest.mark.parametrize(("rest", "words"), [
    ("    group_policy: allowlist\n", "allowlist needs `group_chats:`"),
    ("    group_policy: allowlist\n    group_chats: []\n", "at least one group chat ID"),
    ("    group_policy: allowlist\n    group_chats: 1234567890@chatroom\n", "expected a list"),
    ("    group_policy: allowlist\n    group_chats: [\"a,b\\nEVIL=1\"]\n", "no commas, spaces or line breaks"),
    ("    group_policy: allowlist\n    group_chats: [{x: 1}]\n", "each group chat ID is a string, got a mapping"),
    ("    group_policy: allowlist\n    group_chats: [true]\n", "each group chat ID is a string"),
    ("    group_policy: allowlist\n    group_chats: [null]\n", "each group chat ID is a string"),
    ("    group_policy: pairing\n    group_chats: [1234567890@chatroom]\n", "only with `group_policy: allowlist`"),
    ("    group_chats: [1234567890@chatroom]\n", "only with `group_policy: allowlist`"),
])
def test_bad_group_chats_in_an_answers_file_are_refused_and_nothing_written(tmp_path, rest, words):
    home = demo_copy(tmp_path, "home")
    before = tree(home)
    answers = tmp_path / "answers.yaml"
    answers.write_text(ANSWERS.format(account=ACCOUNT, rest=rest))
    done = wizard("setup", "--home", str(home), "--answers", str(answers))
    assert done.returncode == 2, (rest, done.stdout, done.stderr)
    assert words in done.stderr, (rest, done.stderr)
    assert "Traceback" not in done.stderr and "EVIL=1\n" not in (home / ".env").read_text()
    assert tree(home) == before


def test_group_chats_in_an_answers_file_are_written(tmp_path):
    home, answers = tmp_path / "home", tmp_path / "answers.yaml"
    answers.write_text(ANSWERS.format(account=ACCOUNT, rest="    group_policy: allowlist\n    group_chats: "
                                                            "[1234567890@chatroom]\n"))
    done = wizard("setup", "--home", str(home), "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WEIXIN_GROUP_ALLOWED_USERS=1234567890@chatroom\n" in (home / ".env").read_text()
