"""The keyboard as people expect it (as a new user met it): the first thing to act on has focus, radio cursors start on
the current choice and stop at the ends, Esc never loses answers, quitting asks whenever anything was
typed, type-to-find matches names, ids and aliases anywhere and shows what was typed, and the footer and
palette use only glyphs every terminal font has."""

from __future__ import annotations

from textual.widgets import Button, DataTable, Input, RadioSet, Static

from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.confirm_quit import ConfirmQuit
from hermes_wizard.screens.platform_screen import PlatformScreen


async def test_a_platform_without_fields_focuses_next_and_enter_goes_on(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(PlatformScreen("whatsapp"))  # paired by QR: nothing to type here
        await pilot.pause()
        assert isinstance(app.focused, Button) and app.focused.id == "next"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)


async def test_the_radio_cursor_starts_on_the_current_choice_and_up_does_not_wrap(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        app.push_screen(AccessScreen("telegram"))  # the demo's telegram has an allowlist
        await pilot.pause()
        choices = app.screen.query_one(RadioSet)
        assert choices.pressed_button.id == "mode-allowlist"
        assert choices._selected == choices.pressed_index  # the cursor is on it, not on the first option
        for _ in range(5):
            await pilot.press("up")
        assert choices._selected == 0  # stopped at the top: never wrapped round to "Disabled"
        for _ in range(8):
            await pilot.press("down")
        assert choices._selected == len(choices._nodes) - 1


async def test_esc_on_access_keeps_the_choice_and_the_typed_ids(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        app.push_screen(AccessScreen("weixin"))
        await pilot.pause()
        app.screen.query_one("#mode-allowlist").value = True
        await pilot.pause()
        app.screen.query_one("#ids", Input).value = "wxid_alice, wxid_bob"
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, AccessScreen)
        app.push_screen(AccessScreen("weixin"))
        await pilot.pause()
        assert app.screen.query_one(RadioSet).pressed_button.id == "mode-allowlist"
        assert app.screen.query_one("#ids", Input).value == "wxid_alice, wxid_bob"
        assert app.session.pending() == 0 or "WEIXIN_ALLOWED_USERS" not in str(app.plan().changes)  # not kept yet


async def test_quitting_asks_after_a_half_typed_invalid_token(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 30)) as pilot:
        app.push_screen(PlatformScreen("telegram"))
        await pilot.pause()
        await pilot.press(*"12345:nope")
        await pilot.pause()
        assert app.session.pending() == 0  # an invalid token never reaches the plan...
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmQuit)  # ...but quitting would lose it, so it asks
        assert "what you typed" in str(app.screen.query_one(Static).visual)


async def test_type_to_find_matches_aliases_anywhere_and_shows_what_was_typed(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await pilot.press(*"wechat")
        await pilot.pause()
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == "weixin"
        assert "Find: wechat" in str(app.screen.query_one("#find", Static).visual)
        await pilot.pause(1.2)
        await pilot.press(*"lark")
        await pilot.pause()
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == "feishu"


def test_find_prefers_a_start_then_anywhere_in_a_word():
    from hermes_wizard.hermes.models import model_of
    from hermes_wizard.screens.platforms_screen import find_platform

    specs = model_of("0.20.1").platforms()
    order = ["telegram", "weixin", "whatsapp", "feishu", "google_chat", "line", "teams", "a2a"]
    assert find_platform("chat", order, specs) == "weixin"  # "Weixin (WeChat)": anywhere in the name
    assert find_platform("goo", order, specs) == "google_chat"
    assert find_platform("msteams", order, specs) == "teams"  # Hermes's own alias
    assert find_platform("agent to", order, specs) == "a2a"  # a platform only 0.20 has, by its own label
    assert find_platform("zzz", order, specs) is None


async def test_the_platform_list_is_sorted_by_name_within_enabled_and_disabled(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        rows = [str(key.value) for key in table.rows]
        labels = [str(table.get_cell(name, "platform")).split("  ")[0].split("\n")[0].lower() for name in rows]
        enabled = [row.name for row in app.previewed().rows if row.enabled]
        split = len([name for name in rows if name in enabled])
        assert labels[:split] == sorted(labels[:split]) and labels[split:] == sorted(labels[split:])


async def test_footer_and_palette_use_only_plain_glyphs(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        from textual.binding import Binding

        assert "⏎" not in app.export_screenshot()
        assert [app.get_key_display(Binding(key, "x")) for key in ("enter", "escape", "up", "tab", "ctrl+r")] == \
            ["Enter", "Esc", "Up", "Tab", "^r"]
        await pilot.press("ctrl+p")
        await pilot.pause()
        palette = app.export_screenshot()
        assert "🔎" not in palette
