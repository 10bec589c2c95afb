"""Without colour (NO_COLOR), nothing a user must read is dimmer than 7:1 (WCAG AAA), measured cell by cell from the
colours the compositor draws at 80x24 on every screen: the focused choice and the list's cursor row (4.8:1 once),
placeholders (3.3:1), footer keys (6.4:1), a coloured or a disabled button's words (4.5:1, 2.5:1).

The screen is read as the terminal gets it (`_compositor.render_strips()`: every widget's CSS, then the app's line
filters, which turn every colour grey under NO_COLOR); reverse swaps foreground and background.  Drawing is not
text: spaces, box-drawing and block characters (borders, radio half-blocks, scrollbars).  Behind a modal the screen
is shaded on purpose, so only the modal's own box is read there.
"""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import DataTable, Input

from hermes_wizard.screens.app import WizardApp

AAA = 7.0


def luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def is_drawing(char: str) -> bool:
    return char.isspace() or 0x2500 <= ord(char) <= 0x259F  # box drawing and block elements


def weak_text(app, within: Region | None = None) -> list[str]:
    """Every run of text drawn below 7:1 on the current screen (inside `within`, if given), as 'row: text ratio'."""
    weak = []
    for y, strip in enumerate(app.screen._compositor.render_strips()):
        x = 0
        for segment in strip:
            text, style, x = segment.text, segment.style, x + segment.cell_length
            start = x - segment.cell_length
            if within is not None and not (within.y <= y < within.bottom and start < within.right and x > within.x):
                continue
            if all(is_drawing(char) for char in text):
                continue
            assert style is not None and style.color is not None and style.bgcolor is not None, (y, text)
            fg, bg = tuple(style.color.get_truecolor()), tuple(style.bgcolor.get_truecolor())
            ratio = contrast(fg, bg)
            if ratio < AAA:
                weak.append(f"row {y}: {text.strip()!r} {ratio:.1f}:1")
    return weak


async def settle(pilot) -> None:
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


async def into_view(pilot, selector: str) -> None:
    pilot.app.screen.query_one(selector).scroll_visible(animate=False)
    await settle(pilot)


async def setup_screens(pilot):
    """Home, Platforms (its cursor row), a platform (placeholders), Access (the focused choice; open chosen, its
    confirmation box), and Help over Access."""
    app = pilot.app
    yield "home"
    await pilot.press("enter")
    await settle(pilot)
    yield "platforms"
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index("weixin"))
    await pilot.press("enter")
    await settle(pilot)
    yield "platform"
    await pilot.press("ctrl+n")
    await settle(pilot)
    yield "access"
    app.screen.query_one("#mode-open").value = True
    await settle(pilot)
    app.screen.action_done()  # not confirmed: the error too
    await settle(pilot)
    await into_view(pilot, "#confirm")
    yield "access, open, its confirmation box"
    await pilot.press("f1")
    await settle(pilot)
    yield "help"


async def doctor_screens(pilot):
    """Findings (the focused choice; the names box), a Review Hermes would refuse (the write-anyway box, Apply off),
    the quit question over it, a Review and its Result."""
    app = pilot.app
    yield "findings"
    app.screen.query_one("#open-optin").value = True
    await settle(pilot)
    await into_view(pilot, "#confirm-open")
    yield "findings, the names box"
    await pilot.press("r")
    await settle(pilot)
    app.screen.query_one("#write-anyway", Input)
    await into_view(pilot, "#write-anyway")
    yield "review that Hermes would refuse"
    await pilot.press("ctrl+q")
    await settle(pilot)
    yield "quit question"
    await pilot.press("escape", "escape")
    await settle(pilot)
    app.screen.query_one("#open-pairing").value = True
    await settle(pilot)
    await pilot.press("r")
    await settle(pilot)
    yield "review"
    await pilot.press("ctrl+s")
    for _ in range(100):
        await pilot.pause(0.05)
        if type(app.screen).__name__ == "ResultScreen":
            break
    await settle(pilot)
    yield "result"


@pytest.mark.parametrize("mode, walk", [("setup", setup_screens), ("doctor", doctor_screens)])
async def test_without_colour_everything_to_read_is_at_least_7_to_1(demo, monkeypatch, mode, walk):
    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode=mode)
    seen, weak = [], {}
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.no_color
        async for where in walk(pilot):
            modal = app.screen.is_modal
            found = weak_text(app, app.screen.children[0].region if modal else None)
            seen.append(where)
            if found:
                weak[where] = found
    assert len(seen) == (6 if mode == "setup" else 6), seen
    assert not weak, weak
