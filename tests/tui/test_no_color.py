"""NO_COLOR is honoured: every colour the wizard draws is a grey."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hermes_wizard.screens.app import WizardApp

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"


WINDOW_CHROME = {"#ff5f57", "#febc2e", "#28c840", "#c5c8c6"}  # the SVG export's fake window, not the app


def colours(svg: str) -> set[str]:
    found = {c.lower() for c in re.findall(r"(?:fill|color)[:=]\s*\"?(#[0-9a-fA-F]{6})", svg)}
    return found - WINDOW_CHROME


def is_grey(hex_colour: str) -> bool:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return max(r, g, b) - min(r, g, b) <= 2


async def test_no_color_draws_only_greys(tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
    found = colours(svg)
    assert app.no_color and found
    assert all(is_grey(c) for c in found), sorted(c for c in found if not is_grey(c))


async def test_with_colour_the_verdict_is_coloured(tmp_path, monkeypatch):
    home = tmp_path / "home"
    shutil.copytree(DEMO, home)
    monkeypatch.delenv("NO_COLOR", raising=False)
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
    assert not all(is_grey(c) for c in colours(svg))  # the check above can fail


def segments(widget) -> list:
    """The widget as drawn: every (text, style) segment of its lines, CSS styles included."""
    from textual.geometry import Region

    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return [segment for strip in strips for segment in strip if segment.text.strip()]


def plain(widget) -> str:
    return "".join(segment.text for segment in segments(widget))


def strong(segment) -> bool:
    style = segment.style
    return bool(style and (style.bold or style.reverse) and not style.dim)


async def test_without_colour_the_verdict_and_errors_are_the_strongest_text(demo, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        verdict = segments(app.screen.query_one("#verdict"))
        assert verdict and all(strong(s) for s in verdict), [(s.text, str(s.style)) for s in verdict]
        assert all(s.style.reverse for s in verdict)  # stronger still than the bold title and errors
        shown = segments(app.screen.query_one("#findings"))
        errors = [s for s in shown if "HW201" in s.text or "✗" in s.text]
        assert errors and all(strong(s) for s in errors), [(s.text, str(s.style)) for s in errors]


async def test_without_colour_the_chosen_radio_option_shows_in_plain_text(demo, monkeypatch):
    from textual.widgets import RadioButton

    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        on, off = app.screen.query_one("#open-pairing", RadioButton), app.screen.query_one("#open-allowlist",
                                                                                         RadioButton)
        assert on.value and not off.value
        mark = [plain(button).split()[0] for button in (on, off)]  # the glyph before the label
        assert mark[0] != mark[1], mark


async def test_with_colour_review_colours_added_and_removed_lines(demo, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        drawn = segments(app.screen.query_one("#diff-lines"))
        added = [s for s in drawn if s.text.startswith("+WEIXIN_DM_POLICY")]
        removed = [s for s in drawn if s.text.startswith("-WEIXIN_DM_POLICY")]
        assert added and removed
        green, red = added[0].style.color.triplet, removed[0].style.color.triplet
        assert green.green > max(green.red, green.blue) and red.red > max(red.green, red.blue), (green, red)
