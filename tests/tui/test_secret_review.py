"""The TUI's Review shows a rotated token as changed, masked (ARCHITECTURE.md, "Contracts": secrets never in clear):
before, "1 change in .env" stood above an empty diff, because both sides of the diff mask to the same line."""

from __future__ import annotations

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.review_screen import ReviewScreen
from hermes_wizard.screens.widgets import DiffView

OLD = "123456789:AAHoldOLDoldOLDoldOLDold_abcdefghij"
NEW = "123456789:AAHnewNEWnewNEWnewNEWnew_abcdefghij"


async def test_review_shows_a_rotated_token_as_changed_never_its_value(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    home = tmp_path / "hermes"
    home.mkdir()
    (home / ".env").write_text(f"TELEGRAM_BOT_TOKEN={OLD}\nTELEGRAM_ALLOWED_USERS=111111\n")
    (home / ".env").chmod(0o600)
    (home / "config.yaml").write_text("platforms:\n  telegram:\n    enabled: true\n")
    app = WizardApp(home, "default", mode="setup")
    async with app.run_test(size=(120, 36)) as pilot:
        app.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", NEW)
        app.push_screen(ReviewScreen())
        await pilot.pause()
        diff = app.screen.query_one("#diff", DiffView)
        shown = str(diff.query_one("#diff-lines").render())
        assert "~ TELEGRAM_BOT_TOKEN = (secret changed)" in shown.splitlines(), shown
        assert OLD not in shown + diff.text and NEW not in shown + diff.text
