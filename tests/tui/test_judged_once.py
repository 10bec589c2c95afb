"""The TUI doctor judges each state of the home once and builds the plan once per change of choices: for one fix,
the home is judged from disk twice (before, and read back after apply), and no planned state is judged again on
the way through Findings, Review and Apply — however often the screens redraw."""

from __future__ import annotations

from judgements import count_judgements

from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.result_screen import ResultScreen
from hermes_wizard.screens.review_screen import ReviewScreen


async def test_one_fix_judges_before_and_after_and_nothing_twice(demo, monkeypatch):
    judged = count_judgements(monkeypatch)
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 36)) as pilot:
        assert isinstance(app.screen, FindingsScreen)
        assert (judged.from_disk, judged.plans) == (1, 1), judged.states
        app.screen.query_one("#open-allowlist").value = True  # a change of choices: one new plan
        await pilot.pause()
        assert judged.plans == 2
        app.screen.query_one("#open-pairing").value = True  # and back: the plan of these choices again
        await pilot.pause()
        assert judged.plans == 3
        for _ in range(2):  # Review and back, twice: every redraw asks again; nothing is planned or judged anew
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, ReviewScreen)
            await pilot.press("escape")
            await pilot.pause()
        assert judged.plans == 3
        before_apply = len(judged.states)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(50):  # apply runs in a worker thread
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
    assert app.outcome.applied
    assert judged.from_disk == 2, judged.states  # before, and the written files read back
    assert len(judged.states) == before_apply + 1  # apply judged only what it wrote
    assert judged.repeated() == []
