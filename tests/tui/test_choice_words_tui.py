"""The Access screen shows each choice in the words of the access model (wizard/faces/choice_words.py), for the
judged Hermes: on Hermes 0.19, WhatsApp's group pairing drops every group message, and an open group's opt-in
opens DMs too while DMs are under pairing (not under an allowlist, whose adapter gate keeps strangers out)."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from hermes_wizard.faces.choice_words import NOBODY_IN_GROUPS, OPENS_DMS, access_words, group_words
from hermes_wizard.plan.answers import ACCESS_MODES, GROUP_POLICIES
from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp


def _label(app, policy: str) -> str:
    return " ".join(str(app.screen.query_one(f"#group-words-{policy}", Static).render()).split())


async def test_the_access_screen_words_every_choice_from_the_access_model(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("enter")
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("whatsapp"))
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)
        model = app.report.model
        for mode in ACCESS_MODES:
            shown = str(app.screen.query_one(f"#words-{mode}", Static).render())
            assert " ".join(shown.split()) == access_words(model, "whatsapp", mode)
        app.screen.query_one("#mode-pairing").value = True
        await pilot.pause()
        for policy in GROUP_POLICIES:
            assert _label(app, policy) == group_words(model, "whatsapp", policy, "pairing")
        assert NOBODY_IN_GROUPS in _label(app, "pairing") and OPENS_DMS in _label(app, "open")
        assert "only people approved by pairing are answered" not in _label(app, "pairing")
        app.screen.query_one("#mode-allowlist").value = True  # the open group's opt-in no longer opens DMs
        await pilot.pause()
        assert _label(app, "open") == group_words(model, "whatsapp", "open", "allowlist")
        assert OPENS_DMS not in _label(app, "open")


async def test_a_group_allowlist_shows_the_chats_input_and_keeps_the_chats(demo):
    """Picking the group allowlist shows where to type its chats; keeping it with none is refused in the session's
    words, and the chats typed are the session's answer (what the plan writes where the adapter reads them)."""
    from textual.widgets import Input

    from hermes_wizard.plan.answers import EMPTY_GROUP_ALLOWLIST

    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("enter")
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("whatsapp"))
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AccessScreen)
        screen.query_one("#mode-pairing").value = True
        screen.query_one("#group-disabled").value = True
        await pilot.pause()
        assert not screen.query_one("#group-chats").display
        screen.query_one("#group-allowlist").value = True
        await pilot.pause()
        assert screen.query_one("#group-chats").display
        screen.query_one("#group-chats", Input).value = ""
        screen.action_done()
        await pilot.pause()
        assert app.screen is screen and EMPTY_GROUP_ALLOWLIST in str(screen.query_one("#message", Static).render())
        screen.query_one("#group-chats", Input).value = "120363012345678901@g.us"
        screen.action_done()
        await pilot.pause()
        answer = app.session.answer("whatsapp")
        assert (answer.group, answer.chats) == ("allowlist", ["120363012345678901@g.us"])
