"""Under NO_COLOR the verdict and the errors are the strongest text, measured from the colours drawn.

Each widget is rendered as Textual draws it (its CSS, then the app's line filters: NO_COLOR turns every
colour grey), and the WCAG contrast of every text segment is computed from the foreground and background
actually drawn (reverse swaps them).  The refusing verdict and every error must reach 7:1 (WCAG AAA), and
no message (verdict, findings, hints, errors, warnings, a choice's words) may be dimmer than a label.
"""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Input, Label, Static

from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.platform_screen import PlatformScreen

DECORATION = set("▐▌▊▎▔▁─│╭╮╰╯━ ")  # radio and border half-blocks: drawing, not text
MESSAGE_CLASSES = {"hint", "error-text", "warning-text", "access-words", "verdict-ok", "verdict-bad"}
MESSAGE_IDS = {"verdict", "findings", "plan-notes", "message", "state"}


def luminance(rgb: tuple[int, int, int]) -> float:
    def channel(value: int) -> float:
        v = value / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def drawn(app, widget) -> list[tuple[str, float, bool]]:
    """(text, contrast, bold) of every text segment of `widget` as drawn on screen."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    background = app.screen.styles.background
    out = []
    for strip in strips:
        segments = list(strip)
        for line_filter in app.get_line_filters():
            segments = line_filter.apply(segments, background)
        for segment in segments:
            if segment.style is None or not (set(segment.text) - DECORATION):
                continue
            fg, bg = segment.style.color, segment.style.bgcolor
            assert fg is not None and bg is not None, segment
            fg_rgb, bg_rgb = tuple(fg.get_truecolor()), tuple(bg.get_truecolor())
            if segment.style.reverse:
                fg_rgb, bg_rgb = bg_rgb, fg_rgb
            out.append((segment.text, contrast(fg_rgb, bg_rgb), bool(segment.style.bold)))
    return out


def is_message(widget) -> bool:
    return bool(set(widget.classes) & MESSAGE_CLASSES or (widget.id or "") in MESSAGE_IDS)


def weakest(app, widgets) -> float:
    values = [c for widget in widgets for _, c, _ in drawn(app, widget)]
    return min(values) if values else 99.0


def assert_strong(app, where: str) -> None:
    screen = app.screen
    labels = [w for w in screen.query(Label) if w.display and not is_message(w)]
    messages = [w for w in screen.query(Static) if w.display and is_message(w) and drawn(app, w)]
    label_floor = min(weakest(app, labels), weakest(app, screen.query(".title")), 99.0)
    label_floor = 4.5 if label_floor == 99.0 else label_floor  # a screen without labels: WCAG AA at least
    for widget in messages:
        for text, value, _ in drawn(app, widget):
            assert value >= label_floor - 0.01, f"{where}: {widget.id or widget.classes} {text!r} is {value:.2f}:1, " \
                                                f"dimmer than a label ({label_floor:.2f}:1)"
    for widget in screen.query(".verdict-bad, .error-text, #findings"):
        for text, value, _ in drawn(app, widget):
            if widget.id == "findings" and not text.lstrip().startswith("✗") and "HW" not in text:
                continue
            assert value >= 7.0, f"{where}: {text!r} is {value:.2f}:1 (at least 7:1 wanted)"
    for widget in screen.query(".verdict-bad"):
        assert all(bold for _, _, bold in drawn(app, widget)), where


async def test_without_colour_every_screen_keeps_the_verdict_and_errors_strongest(demo, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.no_color
        assert_strong(app, "findings")
        app.push_screen(PlatformScreen("telegram"))
        await pilot.pause()
        app.screen.query_one("#field-TELEGRAM_BOT_TOKEN", Input).value = "not-a-token"
        await pilot.pause()
        assert_strong(app, "platform with an invalid token")
        app.push_screen(AccessScreen("weixin"))
        await pilot.pause()
        app.screen.query_one("#mode-open").value = True
        await pilot.pause()
        app.screen.action_done()  # open without typing the name: the confirmation error
        await pilot.pause()
        assert app.screen.query_one("#message", Static).visual  # the error is shown
        assert_strong(app, "access with an unconfirmed open")


async def test_without_colour_the_home_screen_verdict_is_the_strongest(demo, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = WizardApp(demo, mode="setup")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert_strong(app, "home")
        verdict = drawn(app, app.screen.query_one("#verdict"))
        assert verdict and min(c for _, c, _ in verdict) >= 7.0
