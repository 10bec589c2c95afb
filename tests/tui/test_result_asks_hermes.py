"""The TUI's Result asks the installed Hermes, as `doctor --fix` does (the use case asks it once files are written:
wizard/cases/fixing.py `Fixing.apply`).  Once only the CLI doctor asked, and the TUI said "Verified" on our own
judgement alone (Faces, round 3, item 5.4).  The installed Hermes here is the oracle venv's real Hermes 0.19.0."""

from __future__ import annotations

from oracle import venv_python
from textual.widgets import Static

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.result_screen import ResultScreen


async def _doctor_result(home) -> tuple[dict[str, str], WizardApp]:
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(200):  # Hermes's imports take about a second
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        await pilot.pause()
        shown = {s.id: str(s.render()) for s in app.screen.query(Static) if s.id}
    return shown, app


async def test_the_result_says_what_the_installed_hermes_said_of_the_written_files(demo, monkeypatch, hermes_oracle):
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", str(venv_python().absolute()))
    shown, app = await _doctor_result(demo)
    assert shown["hermes-said"] == ("Hermes 0.19.0 itself, asked on a copy of the written files: the gateway would "
                                    "start (telegram, weixin)"), shown
    assert shown["verified"].startswith("Verified: the gateway will start") and app.outcome.exit_code == 0


async def test_the_result_never_says_verified_when_the_installed_hermes_refuses(demo, monkeypatch, hermes_oracle):
    from hermes_wizard.hermes import verify as verify_module

    real_ask = verify_module.ask

    def ask_then_break(home, python, base_env, timeout=verify_module.TIMEOUT):  # Hermes asked of a spoilt copy
        (home / ".env").write_text((home / ".env").read_text() + "WECOM_DM_POLICY=open\nWECOM_ENABLED=true\n"
                                   "WECOM_BOT_ID=b\nWECOM_SECRET=s\n")
        return real_ask(home, python, base_env, timeout)

    monkeypatch.setattr(verify_module, "ask", ask_then_break)
    monkeypatch.setenv("HERMES_WIZARD_HERMES_PYTHON", str(venv_python().absolute()))
    shown, app = await _doctor_result(demo)
    assert "would refuse to start, naming wecom" in shown["hermes-said"], shown
    assert shown["verified"].startswith("Written, but the installed Hermes disagrees") and "Verified" not in \
        " ".join(shown.values())
    assert app.outcome.exit_code == 78
