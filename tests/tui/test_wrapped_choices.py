"""A choice's words wrap instead of being cut: Textual draws a radio button or a checkbox on one line, cut with an
ellipsis at the edge of the screen, so at 80 columns the keyring checkbox lost the end of its words ("... instead
of .env": where the secrets go), and so would any choice longer than the screen.  Read from what the compositor
draws, each toggle scrolled into view."""

from __future__ import annotations

import keyring
from system.test_keyring_secrets import TOKEN, InMemoryKeyring
from textual.widgets._toggle_button import ToggleButton

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.review_screen import ReviewScreen


def drawn_in(app, widget) -> str:
    """The words the compositor drew inside `widget` (its border and padding aside), its lines joined."""
    region, rows = widget.content_region, app.screen._compositor.render_strips()
    lines = ("".join(segment.text for segment in rows[y])[region.x:region.right]
             for y in range(region.y, min(region.bottom, len(rows))))
    return " ".join(" ".join(lines).split())


async def cut_toggles(pilot) -> dict[str, str]:
    """Every toggle on the screen whose label is not drawn whole: label → what was drawn."""
    cut = {}
    for toggle in pilot.app.screen.query(ToggleButton):
        if not toggle.display:
            continue
        toggle.scroll_visible(animate=False)
        await pilot.pause()
        label, shown = " ".join(toggle.label.plain.split()), drawn_in(pilot.app, toggle)
        if label not in shown:
            cut[label] = shown
    return cut


async def test_the_keyring_checkbox_is_drawn_whole_at_80_columns(tmp_path, monkeypatch):
    previous = keyring.get_keyring()
    keyring.set_keyring(InMemoryKeyring())
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "test.InMemoryKeyring")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    try:
        app = WizardApp(tmp_path / "new-home", mode="setup")
        async with app.run_test(size=(80, 24)) as pilot:
            app.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
            app.session.set_access("telegram", "allowlist", ["123456789"])
            app.push_screen(ReviewScreen())
            await pilot.pause()
            assert app.screen.query("#keep-in-keyring")
            assert await cut_toggles(pilot) == {}
    finally:
        keyring.set_keyring(previous)


async def test_the_doctors_choices_wrap_on_a_narrow_terminal(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(40, 24)) as pilot:
        await pilot.pause()
        assert len(app.screen.query(ToggleButton)) == 5
        assert await cut_toggles(pilot) == {}
