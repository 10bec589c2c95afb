"""The TUI tells the truth (what it says is what happens): each bug as a new user met it, driven by
Pilot on the demo home, checked against the session model, the files written and `check` itself."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from textual.widgets import DataTable, Input, Static

from hermes_wizard.faces.cli import main as cli
from hermes_wizard.plan.changes import planned_contents
from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.confirm_quit import ConfirmQuit
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.platform_screen import PlatformScreen
from hermes_wizard.screens.platforms_screen import PlatformsScreen
from hermes_wizard.screens.result_screen import ResultScreen
from hermes_wizard.screens.review_screen import ReviewScreen

DEMO = Path(__file__).resolve().parents[2] / "assets" / "homes" / "death-loop"
TOKEN = "7123456789:AAHtestTokenTestTokenTestToken_012345"


async def open_platform(pilot, app, name: str) -> None:
    if not isinstance(app.screen, PlatformsScreen):
        await pilot.press("p" if isinstance(app.screen, FindingsScreen) else "enter")
        await pilot.pause()
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.press("enter")
    await pilot.pause()


async def review_opening_everyone(pilot, app) -> None:
    """The doctor on the demo home, every open policy kept open with its opt-in, on to Review: a plan Hermes would
    refuse (the unpaired WhatsApp)."""
    app.screen.query_one("#open-optin").value = True
    await pilot.pause()
    await pilot.press("r")
    await pilot.pause()
    assert isinstance(app.screen, ReviewScreen)


def text_of(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_pairing_chosen_after_the_repairs_opt_in_writes_no_allow_all(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        assert isinstance(app.screen, FindingsScreen)
        app.screen.query_one("#open-optin").value = True
        await pilot.pause()
        app.screen.query_one("#confirm-open", Input).value = "weixin"
        await pilot.pause()
        assert "WEIXIN_ALLOW_ALL_USERS" in {c.key for c in app.plan().changes}
        await open_platform(pilot, app, "weixin")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, AccessScreen)
        app.screen.query_one("#mode-pairing").value = True
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        changes = {(c.key, c.after) for c in app.plan().changes}
        assert ("WEIXIN_DM_POLICY", "pairing") in changes
        assert not any(key == "WEIXIN_ALLOW_ALL_USERS" and after == "true" for key, after in changes)


async def test_the_repairs_opt_in_needs_the_typed_name(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        app.screen.query_one("#open-optin").value = True
        await pilot.pause()
        assert "WEIXIN_ALLOW_ALL_USERS" not in {c.key for c in app.plan().changes}
        assert "Not opened until you type its name: weixin" in text_of(app.screen, "#plan-notes")


async def test_review_shows_checks_findings_for_the_home_as_it_will_be(demo, tmp_path, capsys):
    """Setup with an unpaired WhatsApp left enabled: Review must show HW201, not a green verdict."""
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 40)) as pilot:
        await open_platform(pilot, app, "weixin")
        await pilot.press("ctrl+n")
        await pilot.pause()
        app.screen.query_one("#mode-pairing").value = True
        await pilot.pause()
        await pilot.press("ctrl+s")  # weixin: pairing
        await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        shown = text_of(app.screen, "#findings")
        assert "verdict-bad" in app.screen.query_one("#after").classes  # errors remain: never green
        plan = app.plan()
    written = tmp_path / "written"
    shutil.copytree(demo, written)
    for name, data in planned_contents(plan).items():
        (written / name).write_bytes(data)
    capsys.readouterr()
    cli(["check", "--home", str(written), "--format", "json"])
    checked = json.loads(capsys.readouterr().out)
    codes = [line.split()[1] for line in shown.splitlines() if not line.startswith("    Fix: ")]
    assert codes == [f["code"] for f in checked["findings"]] and "HW201" in codes


async def test_typed_token_survives_a_revisit_and_esc(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 40)) as pilot:
        await open_platform(pilot, app, "telegram")
        field = app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input)
        assert app.screen.focused is field  # the first field has focus
        await pilot.press(*TOKEN)
        await pilot.press("escape")  # back without Next: nothing lost
        await pilot.pause()
        await open_platform(pilot, app, "telegram")
        assert isinstance(app.screen, PlatformScreen)
        assert app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input).value == TOKEN
        assert ("TELEGRAM_BOT_TOKEN", TOKEN) in {(c.key, c.after) for c in app.plan().changes}


async def test_quitting_with_pending_changes_asks_and_ctrl_c_too(demo):
    before = (demo / ".env").read_bytes()
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        assert app.session.pending() > 0  # the doctor's repair
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmQuit)
        assert "Discard 2 changes?" in text_of(app.screen, "#question")
        await pilot.press("escape")  # keep editing
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen) and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
    assert not app.outcome.applied and (demo / ".env").read_bytes() == before


async def test_result_names_the_real_next_step_without_markup(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        step = text_of(app.screen, "#next")
        assert "hermes gateway run" in step and "`" not in step and "systemctl --user" not in step


async def test_the_review_says_why_no_gate_is_offered_for_a_refused_folder(box, tmp_path):
    """A user unit whose drop-in folder is a link into another unit's folder: the review offers no gate and
    says why, in the line `doctor --install-gate` prints (no friendlier silence)."""
    from unit.test_service_hostile import other_units_folder

    fake, home, dropins = box
    dropins.symlink_to(other_units_folder(tmp_path / "root"))
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        said = text_of(app.screen, "#service-notes")
        assert said.startswith(f"Gate not planned: {dropins} is a symbolic link")
        assert all(step.action != "dropin" for step in app.screen.service_steps)


async def test_a_plan_hermes_would_refuse_needs_write_anyway_typed(demo, tmp_path, capsys):
    """As a new user met it: the doctor's opt-in chosen but the name not typed leaves a plan Hermes refuses.  Review
    keeps Apply off (Back has focus, Ctrl+S does nothing) and says why; only typing "write anyway" turns it on, and
    Result then says check's own line for the written files."""
    from textual.widgets import Button

    before = (demo / ".env").read_bytes()
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        await review_opening_everyone(pilot, app)
        apply = app.screen.query_one("#apply", Button)
        assert apply.disabled and app.screen.focused is app.screen.query_one("#back", Button)
        assert "Apply is off: with these changes Hermes would refuse to start" in text_of(app.screen, "#refusal")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and (demo / ".env").read_bytes() == before
        field = app.screen.query_one("#write-anyway", Input)
        field.focus()
        await pilot.press(*"write anywa")
        await pilot.pause()
        assert apply.disabled
        await pilot.press("y", "enter")
        for _ in range(50):
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        said = text_of(app.screen, "#verified")
    capsys.readouterr()
    assert cli(["check", "--home", str(demo)]) == 78
    assert said == capsys.readouterr().out.splitlines()[-1]


async def test_an_apply_that_is_off_says_why_when_asked_for(demo):
    """Ctrl+S with Apply off, and Enter on a mistyped "write anyway", once did nothing at all: each
    says why Apply is off — the mistyped words quoted back — and writes nothing."""
    from textual.widgets import Button

    before = (demo / ".env").read_bytes()
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        await review_opening_everyone(pilot, app)
        assert app.screen.query_one("#apply", Button).disabled
        assert text_of(app.screen, "#message") == ""
        await pilot.press("ctrl+s")
        await pilot.pause()
        said = " ".join(text_of(app.screen, "#message").split())
        assert said.startswith("Apply is off: Hermes would refuse to start") and "Type write anyway" in said, said
        app.screen.query_one("#write-anyway", Input).focus()
        await pilot.press(*"write anyhow", "enter")
        await pilot.pause()
        said = " ".join(text_of(app.screen, "#message").split())
        assert "'write anyhow' is not 'write anyway'" in said, said
        assert isinstance(app.screen, ReviewScreen) and (demo / ".env").read_bytes() == before


async def test_ctrl_s_with_nothing_to_apply_says_so(demo):
    from hermes_wizard.screens.messages import ReviewRequested

    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 40)) as pilot:
        app.post_message(ReviewRequested())
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen) and not app.session.pending()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert text_of(app.screen, "#message").startswith("Nothing to apply")


async def test_review_stops_saying_forever_once_the_gate_is_planned(box):
    """As a new user met it: Review read the unit as it is now, so with the gate drop-in in its service steps it still
    said "systemd restarts it every 5 s, forever" (HW401).  It judges the unit with the planned drop-in; unticking the
    service steps brings the warning back, because then it is true."""
    from textual.widgets import Checkbox

    fake, home, dropins = box
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        assert any(step.variant == "gate" for step in app.screen.service_steps)
        assert "HW401" not in text_of(app.screen, "#findings") and "forever" not in text_of(app.screen, "#findings")
        app.screen.query_one("#run-service", Checkbox).value = False
        await pilot.pause()
        await pilot.pause()
        assert "HW401" in text_of(app.screen, "#findings")
