"""Help texts name the Hermes the home is judged as, never a version written into the text (a text cannot go stale when
a version is added)."""

from __future__ import annotations

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.help_screen import HelpScreen


def plant_dist_info(home, version: str) -> None:
    """What Hermes's installer leaves in the home: its venv, whose dist-info names the version."""
    info = home / "hermes-agent" / "venv" / "lib" / "python3.11" / "site-packages" / f"hermes_agent-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: hermes-agent\nVersion: {version}\n\n")


async def test_every_help_names_the_version_found(demo):
    plant_dist_info(demo, "0.18.2")
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 36)) as pilot:
        for step in ("home", "platforms"):
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            shown = app.export_screenshot()
            assert "0.18.2" in shown and "0.19" not in shown and "{hermes}" not in shown, step
            await pilot.press("escape")
            await pilot.pause()
            if step == "home":
                await pilot.press("enter")
                await pilot.pause()
