"""An empty confirmation box does not look filled: its placeholder was the very words to type ("write anyway" on
Review, the platform's name on Access), and without colour as bright as a value (tests/tui/test_drawn_contrast.py).
A placeholder is drawn italic and says what to do; what the user types is drawn upright."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import DataTable, Input

from hermes_wizard.faces.outcome import WRITE_ANYWAY
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.review_screen import ReviewScreen


def drawn(field: Input) -> list[tuple[str, bool]]:
    """The box's text as drawn, run by run: (text, italic)."""
    lines = field.render_lines(Region(0, 0, field.outer_size.width, field.outer_size.height))
    return [(segment.text, bool(segment.style and segment.style.italic))
            for line in lines for segment in line if segment.text.strip(" ▊▎▔▁")]


def words(field: Input) -> str:
    return " ".join("".join(text for text, _ in drawn(field)).split())


async def type_into(pilot, field: Input, text: str) -> None:
    field.focus()
    await pilot.press(*text)
    await pilot.pause()


@pytest.mark.parametrize("colour", [True, False], ids=["colour", "no-color"])
async def test_the_write_anyway_box_looks_empty_until_typed(demo, monkeypatch, colour):
    if colour:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(80, 24)) as pilot:
        app.screen.query_one("#open-optin").value = True  # the name not typed: a plan Hermes refuses
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        field = app.screen.query_one("#write-anyway", Input)
        field.scroll_visible(animate=False)
        await pilot.pause()
        empty = words(field)
        assert empty != WRITE_ANYWAY and empty.startswith("type " + WRITE_ANYWAY), empty
        assert all(italic for _, italic in drawn(field)), drawn(field)
        await type_into(pilot, field, WRITE_ANYWAY)
        assert words(field) == WRITE_ANYWAY
        assert not any(italic for _, italic in drawn(field)), drawn(field)


async def test_the_open_confirmation_is_not_the_name_already(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("weixin"))
        await pilot.press("enter", "ctrl+n")
        await pilot.pause()
        app.screen.query_one("#mode-open").value = True
        await pilot.pause()
        field = app.screen.query_one("#confirm", Input)
        field.scroll_visible(animate=False)
        await pilot.pause()
        assert words(field) == "type weixin here" and all(italic for _, italic in drawn(field)), drawn(field)
        await type_into(pilot, field, "weixin")
        assert words(field) == "weixin" and not any(italic for _, italic in drawn(field))
