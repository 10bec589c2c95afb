"""Complete TUI flows driven by Pilot, checked on disk and against the real Hermes."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable, Input

from hermes_wizard.judge.engine import evaluate
from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.home_screen import HomeScreen
from hermes_wizard.screens.platform_screen import PlatformScreen
from hermes_wizard.screens.platforms_screen import PlatformsScreen
from hermes_wizard.screens.result_screen import ResultScreen
from hermes_wizard.screens.review_screen import ReviewScreen

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
TOKEN = "7123456789:AAHtestTokenTestTokenTestToken_012345"


def tree(path: Path) -> dict:
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode)
            for p in sorted(path.rglob("*"))} if path.exists() else {}


async def choose_platform(pilot, app, name: str) -> None:
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.press("enter")
    await pilot.pause()


async def test_setup_from_an_empty_home_to_a_config_hermes_starts(tmp_path, hermes_oracle):
    home = tmp_path / "new-home"
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("enter")
        assert isinstance(app.screen, PlatformsScreen)
        await choose_platform(pilot, app, "telegram")
        assert isinstance(app.screen, PlatformScreen)
        app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input).value = TOKEN
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)
        app.screen.query_one("#mode-allowlist").value = True
        await pilot.pause()
        app.screen.query_one("#ids", Input).value = "123456789"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PlatformsScreen)
        assert not home.exists()  # nothing written before Review
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        diff = app.screen.query_one("#diff").text
        assert TOKEN not in diff and "TELEGRAM_ALLOWED_USERS=123456789" in diff
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
    env = (home / ".env").read_text()
    assert f"TELEGRAM_BOT_TOKEN={TOKEN}" in env and "TELEGRAM_ALLOWED_USERS=123456789" in env
    assert (home / ".env").stat().st_mode & 0o777 == 0o600
    report = evaluate(home)
    assert report.would_start and [r.name for r in report.rows if r.enabled] == ["telegram"]
    hermes = hermes_oracle.evaluate(home)
    assert hermes["would_start"] and hermes["enabled"] == ["telegram"] and hermes["error"] is None


async def test_doctor_fixes_the_demo_home(demo, hermes_oracle):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 36)) as pilot:
        assert isinstance(app.screen, FindingsScreen)
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert "WEIXIN_DM_POLICY=pairing" in app.screen.query_one("#diff").text
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ResultScreen)
    assert app.outcome.applied
    report = evaluate(demo)
    assert report.would_start and {r.name for r in report.rows if r.enabled} == {"telegram", "weixin"}
    hermes = hermes_oracle.evaluate(demo)
    assert hermes["would_start"] and set(hermes["enabled"]) == {"telegram", "weixin"}


async def test_open_needs_the_platform_name_typed(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        await pilot.press("enter")
        await choose_platform(pilot, app, "weixin")
        await pilot.press("ctrl+n")
        await pilot.pause()
        app.screen.query_one("#mode-open").value = True
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)  # refused: name not typed
        app.screen.query_one("#confirm", Input).value = "weixin"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PlatformsScreen)
        keys = {(c.key, c.after) for c in app.plan().changes}
        assert ("WEIXIN_ALLOW_ALL_USERS", "true") in keys
        assert all(c.key != "GATEWAY_ALLOW_ALL_USERS" for c in app.plan().changes)


async def test_back_navigation_keeps_answers_and_cancel_writes_nothing(demo):
    before = tree(demo)
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await choose_platform(pilot, app, "weixin")
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PlatformScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PlatformsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("ctrl+q")
    assert not app.outcome.applied
    assert tree(demo) == before


async def test_file_strings_are_shown_escaped_and_never_as_markup(tmp_path):
    """A home path and file values holding escapes and Textual markup: shown as text (nothing a home holds reaches the
    terminal raw)."""
    home = tmp_path / "home[bold red]\x1b]52;c;eA==\x07\u202e"
    shutil.copytree(DEMO, home)
    (home / "gateway_state.json").write_text('{"gateway_state": "startup_failed", '
                                             '"exit_reason": "weixin[/]\\u001b[2J: x[link=evil]"}')
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(100, 36)) as pilot:
        assert isinstance(app.screen, FindingsScreen)
        shown = " ".join(str(static.render()) for static in app.screen.query("Static"))
        assert "home[bold red]\\x1b]52;c;eA==\\x07\\u202e" in shown and "\x1b" not in shown
        assert "[/]\\x1b[2J" in shown and "\u202e" not in shown
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
