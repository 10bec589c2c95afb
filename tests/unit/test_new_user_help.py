"""What a new user needs on each platform's screen (as a new user met them): where the credentials come from, how to
find one's own ID, and allowlist entries that can match no sender refused in every face before anything is written."""

from __future__ import annotations

import pytest

from hermes_wizard.faces.cli import main
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.plan.session import AnswerError, Session
from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.platform_screen import PlatformScreen


@pytest.mark.parametrize("platform, ids", [("telegram", ["@myname"]), ("telegram", ["123", "alice"]),
                                           ("whatsapp", ["weixin"])])
def test_an_allowlist_entry_that_can_match_no_sender_is_refused(demo, platform, ids):
    session = Session(evaluate(demo))
    for mode in ("allowlist", "pairing"):
        with pytest.raises(AnswerError, match="can never match"):
            session.set_access(platform, mode, ids)
    assert session.pending() == 0


def test_numeric_telegram_ids_and_whatsapp_numbers_are_kept(demo):
    session = Session(evaluate(demo))
    session.set_access("telegram", "allowlist", ["123456789", "-1001234567890"])
    session.set_access("whatsapp", "pairing", ["+15551234567"])
    assert session.pending() > 0


def test_an_answers_file_with_a_username_for_telegram_writes_nothing(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    answers = tmp_path / "answers.yaml"
    answers.write_text("platforms:\n  telegram:\n    env: {TELEGRAM_BOT_TOKEN: {from_env: TELEGRAM_BOT_TOKEN}}\n"
                       "    allowed_users: ['@myname']\n")
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123456789:AAEhBP0av28c6kEX7b3ZpQ9rT1yU2iO3pLm")
    assert main(["setup", "--answers", str(answers), "--home", str(home)]) == 2
    err = capsys.readouterr().err
    assert "answers.yaml:4: platforms.telegram.allowed_users: '@myname' can never match a Telegram sender" in err
    assert "@userinfobot" in err and not home.exists()


@pytest.mark.parametrize("platform, words", [("weixin", "hermes gateway setup"), ("whatsapp", "hermes whatsapp"),
                                             ("telegram", "@BotFather")])
async def test_each_platform_screen_says_where_its_credentials_come_from(demo, platform, words):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        app.push_screen(PlatformScreen(platform))
        await pilot.pause()
        assert words in str(app.screen.query_one("#source").visual)


async def test_the_access_screen_says_how_to_find_ones_own_id_and_refuses_a_username(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        app.push_screen(AccessScreen("telegram"))
        await pilot.pause()
        assert "@userinfobot" in str(app.screen.query_one("#ids-help").visual)
        app.screen.query_one("#ids").value = "@myname"
        app.screen.action_done()
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)  # not kept
        assert "can never match a Telegram sender" in str(app.screen.query_one("#message").visual)


def test_check_text_json_and_tui_name_the_same_group_policy(demo, capsys):
    """Weixin's groups are off by default in its adapter: text said "groups pairing" (the gate's reading of an
    unset policy) while JSON and the TUI said "disabled"."""
    import json

    main(["check", "--home", str(demo), "--format", "json"])
    rows = {p["name"]: p for p in json.loads(capsys.readouterr().out)["platforms"]}
    main(["check", "--home", str(demo)])
    text = capsys.readouterr().out
    line = next(line for line in text.splitlines() if line.startswith("[") and " weixin " in line)
    assert f"groups {rows['weixin']['group_policy']}" in line and rows["weixin"]["group_policy"] == "disabled"


async def test_the_access_screen_asks_about_groups_starting_on_what_the_adapter_applies(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 50)) as pilot:
        app.push_screen(AccessScreen("weixin"))
        await pilot.pause()
        groups = app.screen.query_one("#group-choices")
        assert groups.pressed_button.id == "group-disabled" and "Hermes's default" in str(groups.pressed_button.label)
        app.screen.query_one("#mode-pairing").value = True
        app.screen.query_one("#group-open").value = True
        await pilot.pause()
        app.screen.action_done()  # an open group needs the name typed, like open DMs
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen) and "Type weixin" in str(app.screen.query_one("#message").visual)
        app.screen.query_one("#group-allowlist").value = True
        await pilot.pause()
        app.screen.query_one("#group-chats").value = "1234567890@chatroom"  # a group allowlist names its chats
        app.screen.action_done()
        await pilot.pause()
        changes = {c.key: c.after for c in app.plan().changes}
        assert changes.get("WEIXIN_GROUP_POLICY") == "allowlist" or any(
            k.endswith("group_policy") and v == "allowlist" for k, v in changes.items()), changes
        assert changes.get("WEIXIN_GROUP_ALLOWED_USERS") == "1234567890@chatroom", changes


async def test_a_platform_without_a_group_policy_gets_no_group_question(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        app.push_screen(AccessScreen("telegram"))
        await pilot.pause()
        assert not app.screen.query("#group-choices")


def test_the_plain_face_asks_about_groups_too(demo, capsys):
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from hermes_wizard.faces.plain.ask import Asker
    from hermes_wizard.faces.plain.platforms import choose_group

    session = Session(evaluate(demo))
    up = "\x1b[A"
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(up + "\r")  # the cursor starts on disabled (what the adapter applies); one up: pairing
        choose_group(Asker(width=80), session, "weixin")
    assert session.answer("weixin").group == "pairing"
