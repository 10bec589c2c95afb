"""After a service step fails (no user bus: systemd's own words, from the fake systemctl), every face names the
same next command: the TUI's Result (driven by Pilot), the plain prompts and the headless `doctor --fix`.  They
once said three different ones (Faces, round 3, item 5): the restart hint without the session's units, the
CLI's "(or rerun with --restart)", or nothing at all."""

from __future__ import annotations

import pytest
from service_box import doctor
from textual.widgets import Static
from unit.test_plain_prompts import plain

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.result_screen import ResultScreen

NO_BUS = [1, "Failed to connect to bus: No medium found"]  # systemctl --user over SSH without XDG_RUNTIME_DIR
WHERE = "from a shell where systemctl reaches the unit (it failed here, see above)"
RESTART = f"Next: restart the gateway once {WHERE}: systemctl --user restart hermes-gateway.service"
GATE = "hermes-wizard doctor --install-gate --home {home}"
# each with the restart failing too: a restart that runs is watched for 12 s in the interactive faces
FAILURES = {"restart": ({"restart": NO_BUS}, RESTART),
            "gate and restart": ({"daemon-reload": NO_BUS, "restart": NO_BUS}, f"{RESTART}; then add the gate: {GATE}")}


async def _tui(home, capsys) -> str:
    app = WizardApp(home, mode="doctor")
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.press("r")  # the safe repair, with the service steps the TUI offers: gate and restart
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(100):
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        await pilot.pause()  # the Result screen mounted whole (its header too) before the app closes
        return str(app.screen.query_one("#next", Static).render())


def _plain(home, capsys) -> str:
    plain("doctor", home, "\r", "\r", "\r", "y\r", "y\r")  # the safe repair, review, apply, run the service steps
    return capsys.readouterr().out


def _headless(home, capsys) -> str:
    return doctor(capsys, home, "--fix", "--yes", "--install-gate", "--restart")[1]


def _assert_next(said: str, expected: str) -> None:
    flat = " ".join(said.split())  # the plain face wraps at 80 columns
    assert flat[flat.rfind("Next: "):].startswith(expected), said


@pytest.mark.parametrize("failure", sorted(FAILURES))
async def test_the_tui_names_the_models_next_command_after_a_failed_service_step(box, capsys, failure):
    fake, home, _ = box
    fake.state["fail"], expected = FAILURES[failure]
    fake.save()
    _assert_next(await _tui(home, capsys), expected.format(home=home))


@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("face", [_plain, _headless])
def test_the_plain_and_headless_faces_name_the_same_next_command(box, capsys, face, failure):
    fake, home, _ = box
    fake.state["fail"], expected = FAILURES[failure]
    fake.save()
    _assert_next(face(home, capsys), expected.format(home=home))


def test_a_gate_that_systemd_did_not_read_is_the_next_step_once_the_gateway_runs(box, capsys):
    fake, home, _ = box
    fake.state["fail"] = {"daemon-reload": NO_BUS}
    fake.save()
    _assert_next(_headless(home, capsys), f"Next: add the gate {WHERE}: {GATE.format(home=home)}")
