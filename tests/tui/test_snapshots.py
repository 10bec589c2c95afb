"""SVG snapshots of every screen at 80×24 and 120×36, in colour and under NO_COLOR; no secret may appear
in any of them.

The home is `~/.hermes` of a per-run HOME, so the screens (which show it as `~/.hermes`) are the
same on every run and machine, and two runs never share a folder.
Regenerate after an intended UI change with `scripts/test.sh tests/tui --snapshot-update`.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from hermes_wizard.screens.app import WizardApp

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
SIZES = [(80, 24), (120, 36)]
COLOURS = ["colour", "no-color"]
SECRETS = ["AAHdemoTokenNotRealNotReal_0123456789", "demo-ilink-token-0000000000000000", "sk-or-v1-0demo0000",
           "TypedSecretToken_abcdefghijklmnopqrstuvwxyz"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / ".hermes"
    shutil.copytree(DEMO, path)
    (path / ".env").chmod(0o600)
    return path


async def to_platforms(pilot):
    await pilot.press("enter")
    await pilot.pause()


async def open_row(pilot, name):
    await to_platforms(pilot)
    table = pilot.app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.press("enter")
    await pilot.pause()


async def platform_with_typed_secret(pilot):
    await open_row(pilot, "telegram")
    pilot.app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input).focus()
    await pilot.press(*"7123:TypedSecretToken_abcdefghijklmnopqrstuvwxyz"[:20])
    field = pilot.app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input)
    field.value = "TypedSecretToken_abcdefghijklmnopqrstuvwxyz"
    # A steady cursor: it blinks every 0.5 s, and under load the picture came a blink later (a flaky snapshot).
    field.cursor_blink = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()  # under load the last keystrokes' redraw can land late
    await pilot.pause()


async def access(pilot):
    await open_row(pilot, "weixin")
    await pilot.press("ctrl+n")
    await pilot.pause()


async def review(pilot):
    await pilot.press("r")  # from the doctor's findings
    await pilot.pause()


async def help_modal(pilot):
    await pilot.press("f1")
    await pilot.pause()


async def applied(pilot):
    await review(pilot)
    await pilot.press("ctrl+s")
    await pilot.pause()


SCREENS = {
    "home": ("setup", None),
    "platforms": ("setup", to_platforms),
    "platform": ("setup", platform_with_typed_secret),
    "access": ("setup", access),
    "findings": ("doctor", None),
    "review": ("doctor", review),
    "help": ("doctor", help_modal),
    "result": ("doctor", applied),
}


@pytest.mark.parametrize("colour", COLOURS)
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_screen_snapshot(snap_compare, home, screen, size, colour, monkeypatch):
    import time as real_time

    import hermes_wizard.write.backups

    fixed = real_time.struct_time((2026, 11, 29, 14, 15, 3, 6, 333, 0))  # the backup folder's name is shown
    monkeypatch.setattr(hermes_wizard.write.backups, "time", type("FixedClock", (), {
        "strftime": staticmethod(lambda fmt, t=None: real_time.strftime(fmt, fixed))})())
    if colour == "no-color":
        monkeypatch.setenv("NO_COLOR", "1")  # Textual reads it when the App is made
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    mode, steps = SCREENS[screen]
    app = WizardApp(home, mode=mode)
    assert snap_compare(app, run_before=steps, terminal_size=size)


def test_no_secret_in_any_snapshot():
    folder = Path(__file__).parent / "__snapshots__" / "test_snapshots"
    files = sorted(folder.glob("*.svg"))
    assert len(files) == len(SCREENS) * len(SIZES) * len(COLOURS)
    for svg in files:
        text = svg.read_text()
        for secret in SECRETS:
            assert secret not in text, (svg.name, secret)
