"""NO_COLOR is honoured: every colour the wizard draws is a grey."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from screens.app import WizardApp

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
