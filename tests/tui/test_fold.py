"""At 80x24 the verdict and the focused action are above the fold on every screen (as a new user at 80x24 needs them):
the doctor's first screen showed only findings with its choices below, and Review's verdict sat below the diff while
Apply was focused.  "Above the fold" is measured: the widget's region on the screen lies within the rows above the
footer."""

from __future__ import annotations

from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.platform_screen import PlatformScreen

SIZE = (80, 24)
LAST_ROW = SIZE[1] - 1  # the footer's row


def in_view(widget) -> bool:
    region = widget.region
    return region.height > 0 and region.y >= 1 and region.y + region.height <= LAST_ROW


def check_screen(app, where: str) -> None:
    focused = app.focused
    assert focused is not None, f"{where}: nothing has focus"
    assert type(focused).__name__ != "VerticalScroll", f"{where}: the scroll area has focus, not an action"
    assert in_view(focused), f"{where}: the focused {focused!r} at {focused.region} is below the fold"
    for verdict in app.screen.query("#verdict, #after"):
        assert in_view(verdict), f"{where}: the verdict at {verdict.region} is below the fold"


async def test_the_doctors_first_screen_keeps_the_verdict_and_its_choices_in_view(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query("#verdict")
        check_screen(app, "findings")


async def test_the_doctors_review_keeps_the_verdict_beside_the_focused_apply(demo):
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert app.screen.query("#after") and app.focused.id == "apply"
        check_screen(app, "review")


async def test_setup_screens_keep_the_verdict_and_the_focused_action_in_view(demo):
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        check_screen(app, "home")
        await pilot.press("enter")
        await pilot.pause()
        check_screen(app, "platforms")
        for platform in ("telegram", "whatsapp", "weixin"):
            app.push_screen(PlatformScreen(platform))
            await pilot.pause()
            check_screen(app, f"platform {platform}")
            app.push_screen(AccessScreen(platform))
            await pilot.pause()
            check_screen(app, f"access {platform}")
            app.pop_screen()
            app.pop_screen()
            await pilot.pause()
        await pilot.press("ctrl+r")
        await pilot.pause()
        check_screen(app, "review")


async def test_enter_in_the_doctors_name_input_goes_on_to_review(demo):
    from hermes_wizard.screens.review_screen import ReviewScreen

    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        app.screen.query_one("#open-optin").value = True
        await pilot.pause()
        app.screen.query_one("#confirm-open").focus()
        await pilot.press(*"weixin", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
