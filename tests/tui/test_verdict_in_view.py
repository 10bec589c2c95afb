"""The verdict is in view on every screen at 80x24, in `check`'s words, without scrolling: Platforms, a platform and
Access said none; Findings never showed it together with "Review the fix"; Result, after service steps, scrolled
what was written away, and with a few more lines its outcome sentence.  Read from what the compositor draws (the
screen as the terminal gets it), held to `check` run on the home (or on a copy with the plan written, for "After
these changes: …")."""

from __future__ import annotations

from dataclasses import replace

from one_outcome import _flat, check_line, write_planned
from textual.widgets import DataTable

from hermes_wizard.plan.service_steps import ServiceRequest
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.result_screen import ResultScreen

SIZE = (80, 24)


def on_screen(app) -> str:
    """The words drawn on the whole screen, row after row, as one line (a wrapped sentence reads whole)."""
    rows = ("".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips())
    return _flat(" ".join(rows))


def clause(capsys, home) -> str:
    """`check`'s verdict for `home`, without its "Verdict: " and its "→ hermes-wizard doctor" (Home and Findings
    show the clause with a mark; "After these changes: …" is the whole line)."""
    _, line = check_line(capsys, home)
    return _flat(line.removeprefix("Verdict: ")).split(" → ")[0]


def assert_in_view(shown: str, words: str, where: str, also: str = "") -> None:
    """`words` (and `also`) are among the words `shown` on a screen (`on_screen`), the first letter's case aside."""
    for wanted in filter(None, (words, also)):
        assert wanted.lower() in shown.lower(), f"{where}: {wanted!r} is not in view at 80x24:\n{shown}"


async def test_setup_shows_checks_verdict_on_every_screen(demo, capsys):
    verdict = clause(capsys, demo)
    app = WizardApp(demo, mode="setup")
    shown = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown["home"] = on_screen(app)
        await pilot.press("enter")
        await pilot.pause()
        shown["platforms"] = on_screen(app)
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("weixin"))
        await pilot.press("enter")
        await pilot.pause()
        shown["platform"] = on_screen(app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        shown["access"] = on_screen(app)
    for where, words in shown.items():
        assert_in_view(words, verdict, where)


async def test_the_doctor_shows_checks_verdict_and_review_together(demo, capsys, tmp_path):
    """Findings: the home's verdict beside "Review the fix"; the screens after it: the verdict of the plan so far
    (`check` runs after the app: Textual holds stdout while it runs)."""
    app = WizardApp(demo, mode="doctor")
    shown = {}
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        shown["findings"] = on_screen(app)
        plan = app.plan()
        await pilot.press("p")
        await pilot.pause()
        shown["platforms"] = on_screen(app)
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("weixin"))
        await pilot.press("enter")
        await pilot.pause()
        shown["platform"] = on_screen(app)
        await pilot.press("ctrl+n")
        await pilot.pause()
        shown["access"] = on_screen(app)
        await pilot.press("ctrl+r")
        await pilot.pause()
        shown["review"] = on_screen(app)
    assert_in_view(shown.pop("findings"), clause(capsys, demo), "findings", also="Review the fix")
    after = "After these changes: " + clause(capsys, write_planned(demo, plan, tmp_path))
    for where, words in shown.items():
        assert_in_view(words, after, f"{where}, with the repair planned")


async def test_the_result_of_service_steps_keeps_its_outcome_in_view(box, capsys):
    """On a machine with Hermes's unit (fake systemd): the gate installed, the restart watched (settle 0, as
    `doctor --settle 0`); Result lists every step, and what was written and the outcome sentence, `check`'s own,
    stay in view at 80x24 above them."""
    fake, home, _ = box
    app = WizardApp(home, mode="doctor")
    app.choices = replace(app.choices, service=ServiceRequest(install_gate=True, restart=True, settle=0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("ctrl+s")
        for _ in range(200):
            await pilot.pause(0.05)
            if isinstance(app.screen, ResultScreen):
                break
        assert isinstance(app.screen, ResultScreen)
        await pilot.pause()
        result, shown = app.screen.result, on_screen(app)
    assert result.service_lines and result.restarts, result  # the gate written, the restart watched
    code, line = check_line(capsys, home)
    body = _flat(line.removeprefix("Verdict: "))
    assert_in_view(shown, ("Verified: " + body) if code == 0 else body, "result", also="Written: .env")
    assert "Next: " in shown  # and the last of what scrolls below it: Done has the focus


async def test_a_platforms_verdict_follows_the_field_just_left(tmp_path, capsys):
    """On a platform's screen the verdict is of the answers so far: a valid token typed, once its field is left,
    is what `check` would say of the home with it written."""
    from hermes_wizard.screens.platform_screen import PlatformScreen

    home = tmp_path / "new-home"
    home.mkdir()
    before = clause(capsys, home)
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(PlatformScreen("telegram"))
        await pilot.pause()
        first = on_screen(app)
        field = app.screen.query_one("#field-TELEGRAM_BOT_TOKEN")
        field.value = "7123456789:AAHtestTokenTestTokenTestToken_012345"
        await pilot.pause()
        app.screen.query_one("#next").focus()  # the field left
        await pilot.pause()
        after, plan = on_screen(app), app.plan()
    assert_in_view(first, before, "platform, nothing typed")
    assert plan
    assert_in_view(after, "After these changes: " + clause(capsys, write_planned(home, plan, tmp_path)),
                   "platform, a token typed")
