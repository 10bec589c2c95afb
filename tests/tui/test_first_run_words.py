"""A first run on a home that does not exist, on a machine without Hermes: every face says, next to the verdict,
that the home will be created (then that it was), and that Hermes is not installed — the verdict is about the
files, and must not read as a gateway that will run.  Once they said only "✓ The gateway will start".
The words are the outcome model's (wizard/faces/outcome.py `setting_notes`), fed
by the use case (Proposal.creates_home, Applied.created_home)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from hermes_wizard.faces.cli import main
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.home_screen import HomeScreen
from hermes_wizard.screens.messages import ReviewRequested
from hermes_wizard.screens.result_screen import ResultScreen
from hermes_wizard.screens.review_screen import ReviewScreen

TOKEN = "7123456789:AAHfirstRunTokenNotReal_0123456"
NO_HERMES = ("Hermes is not installed here (none in the home's venv or on PATH): this verdict is about the files "
             "alone; no gateway runs until Hermes is installed.")


@pytest.fixture
def no_hermes(tmp_path, monkeypatch):
    """A machine where no Hermes is found: none named, none on PATH; the home below a folder that exists."""
    monkeypatch.delenv("HERMES_WIZARD_HERMES_PYTHON", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    return tmp_path / "new-home"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _bare(text: str) -> str:
    return "".join(text.split())


def _said_in_order(out: str, home) -> None:
    # the plain face wraps at the terminal's width, inside a long path too: compared without any whitespace
    flat = _bare(out)
    before = _bare(f"{home} does not exist yet: applying creates it.")
    after = _bare(f"Created {home} (it did not exist).")
    assert before in flat and after in flat and flat.index(before) < flat.index(after), out
    verified = flat.rindex(_bare("Verified: the gateway will start (telegram)."))
    verdict = _bare("Verified: the gateway will start (telegram).")
    assert flat[verified:].startswith(verdict + after + _bare(NO_HERMES)), out


def test_the_plain_face_says_the_home_is_created_and_hermes_is_not_installed(no_hermes, capsys):
    from unit.test_plain_prompts import plain

    rc = plain("setup", no_hermes, "telegram\r", TOKEN + "\r", "\r", "\r", "review\r", "y\r")
    out = capsys.readouterr().out
    assert rc == 0 and (no_hermes / ".env").is_file()
    _said_in_order(out, no_hermes)
    assert _flat(out).index(_flat(NO_HERMES)) < _flat(out).index("After these changes")  # at the first verdict too


def test_setup_flags_say_it_too(no_hermes, capsys, monkeypatch):
    monkeypatch.setenv("MY_TELEGRAM_BOT_TOKEN", TOKEN)
    rc = main(["setup", "--home", str(no_hermes), "--platform", "telegram", "--token-from-env", "MY_TELEGRAM_BOT_TOKEN",
               "--allow", "123456789"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert _bare(f"Created {no_hermes} (it did not exist).") in _bare(out) and _bare(NO_HERMES) in _bare(out), out
    assert _bare(f"{no_hermes} does not exist yet: applying creates it.") in _bare(out), out


async def test_the_tui_says_it_on_its_first_screen_its_review_and_its_result(no_hermes):
    home = no_hermes
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(120, 50)) as pilot:
        assert isinstance(app.screen, HomeScreen)
        first = str(app.screen.query_one("#setting-notes", Static).render())
        assert first == f"{home} does not exist yet: applying creates it.\n{NO_HERMES}", first
        app.session.type_value("telegram", "TELEGRAM_BOT_TOKEN", TOKEN)
        app.session.set_access("telegram", "allowlist", ["123456789"])
        app.post_message(ReviewRequested())
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        review = str(app.screen.query_one("#setting-notes", Static).render())
        assert review == first, review
        await pilot.press("ctrl+s")
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        await pilot.pause()
        result = str(app.screen.query_one("#setting-notes", Static).render())
        assert result == f"Created {home} (it did not exist).\n{NO_HERMES}", result
        assert not app.screen.query(Input)
