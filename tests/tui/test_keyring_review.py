"""Review offers the OS keyring for typed secrets (every face offers it, the TUI included), and says so in one line
where there is none; the choice changes the plan, the diff and the verdict shown, and what apply writes."""

from __future__ import annotations

import keyring
from system.test_keyring_secrets import TOKEN, InMemoryKeyring
from textual.widgets import Checkbox, Static

from hermes_wizard.core import keyring_store
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.review_screen import ReviewScreen


async def _review(app, pilot):
    app.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
    app.session.set_access("telegram", "allowlist", ["123456789"])
    app.push_screen(ReviewScreen())
    await pilot.pause()
    return app.screen


async def test_review_keeps_typed_secrets_in_the_keyring_when_asked(tmp_path, monkeypatch):
    previous, backend = keyring.get_keyring(), InMemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "test.InMemoryKeyring")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    home = tmp_path / "new-home"
    try:
        app = WizardApp(home, "default", mode="setup")
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await _review(app, pilot)
            box = screen.query_one("#keep-in-keyring", Checkbox)
            in_env = lambda: any(c.file == ".env" and c.key == "TELEGRAM_BOT_TOKEN" for c in app.plan().changes)
            assert not box.value and in_env()
            box.value = True
            await pilot.pause()
            assert not in_env() and isinstance(app.screen.query_one("#keep-in-keyring", Checkbox), Checkbox)
            assert app.session.secrets_in_keyring and [s.variable for s in app.plan().keyring] == [
                "TELEGRAM_BOT_TOKEN"]
            assert "will start" in str(app.screen.query_one("#after", Static).render())
            await pilot.press("ctrl+s")
            for _ in range(50):
                await pilot.pause(0.1)
                if (home / ".env").exists():
                    break
        assert TOKEN not in (home / ".env").read_text()
        assert backend.store == {keyring_store.entry_for(home, "TELEGRAM_BOT_TOKEN"): TOKEN}
    finally:
        keyring.set_keyring(previous)


async def test_review_says_in_one_line_when_there_is_no_keyring(tmp_path, monkeypatch):
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    try:
        app = WizardApp(tmp_path / "h", "default", mode="setup")
        async with app.run_test(size=(120, 36)) as pilot:
            screen = await _review(app, pilot)
            assert not screen.query("#keep-in-keyring")
            line = str(screen.query_one("#keyring-none", Static).render())
            assert "0600" in line
            assert line.startswith("The secrets go to .env, mode 0600: no OS keyring is available here (")
    finally:
        keyring.set_keyring(previous)


async def test_over_ssh_the_home_screen_says_where_secrets_go_once(tmp_path, monkeypatch):
    from hermes_wizard.screens.home_screen import HomeScreen

    monkeypatch.setenv("SSH_CONNECTION", "192.0.2.1 50000 192.0.2.2 22")
    app = WizardApp(tmp_path / "h", "default", mode="setup")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HomeScreen)
        notes = screen.query("#ssh-note")
        assert len(notes) == 1
        text = str(notes.first(Static).render())
        assert "mode 0600" in text and "keyring is usually unavailable over SSH" in text


async def test_save_answers_from_the_tui_writes_the_file_before_the_apply(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    home, saved = tmp_path / "h", tmp_path / "answers.yaml"
    app = WizardApp(home, "default", mode="setup", save_answers=str(saved))
    async with app.run_test(size=(120, 36)) as pilot:
        app.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
        app.session.set_access("telegram", "pairing")
        result = app.apply_pending().result
        await pilot.pause()
    assert result.report.would_start and app.outcome.saved == saved
    assert TOKEN not in saved.read_text() and "telegram" in saved.read_text()
