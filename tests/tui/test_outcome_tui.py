"""One outcome sentence in the TUI (ARCHITECTURE.md, "Contracts"): driven by Pilot over the same generated sessions as
the headless faces (tests/support/one_outcome.py), Review's "After these changes: …" and Result's verdict are `check`'s
line for the files written, "Verified" exactly when `check` exits 0; a plan Hermes would refuse is not applied by
accident."""

from __future__ import annotations

import pytest
from one_outcome import IDS, held_to_check, make_home, refused_to_write, sessions, typed, write_planned
from textual.widgets import Button, DataTable, Input, Static

from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.platform_screen import PlatformScreen
from hermes_wizard.screens.platforms_screen import PlatformsScreen
from hermes_wizard.screens.result_screen import ResultScreen
from hermes_wizard.screens.review_screen import ReviewScreen

CASES = [(kind, i, session) for kind in ("demo", "empty") for i, session in enumerate(sessions(kind))]
# About 3.5 s a session under Pilot: one in sixteen (three per home) runs in the fast loop, all 80 without
# -m "not slow"; the same sessions' headless faces run in the fast loop too (tests/unit/test_one_outcome.py).
PARAMS = [pytest.param(case, marks=() if case[1] % 16 == 0 else pytest.mark.slow) for case in CASES]


def _id(case) -> str:
    kind, i, session = case
    return f"{kind}-{i}-" + "-".join(f"{name[:2]}{mode[:2]}" for name, mode in session.items())


def _text(screen, selector: str) -> str:
    found = screen.query(selector)
    return str(found.first(Static).render()) if found else ""


def _tree(home):
    return {str(p.relative_to(home)): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


async def answer(pilot, app, kind: str, name: str, mode: str) -> None:
    """Open `name` from the list, type its credentials, choose `mode` on Access and keep it."""
    if not isinstance(app.screen, PlatformsScreen):
        await pilot.press("enter")
        await pilot.pause()
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, PlatformScreen)
    for key, value in typed(kind, name).items():
        app.screen.query_one(f"#field-{key}", Input).value = value
    await pilot.pause()
    await pilot.press("ctrl+n")
    await pilot.pause()
    assert isinstance(app.screen, AccessScreen)
    app.screen.query_one(f"#mode-{mode}").value = True
    await pilot.pause()
    app.screen.query_one("#ids", Input).value = IDS[name] if mode == "allowlist" else ""
    if mode == "open":
        app.screen.query_one("#confirm", Input).value = name
    await pilot.pause()
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert isinstance(app.screen, PlatformsScreen), f"{name} {mode}: {_text(app.screen, '#message')}"


@pytest.mark.parametrize("case", PARAMS, ids=_id)
async def test_review_and_result_end_on_checks_line(case, tmp_path, capsys):
    kind, _, session = case
    label = f"tui {_id(case)}"
    home = make_home(kind, tmp_path)
    before = _tree(home)
    app = WizardApp(home, mode="setup")
    async with app.run_test(size=(120, 40)) as pilot:
        for name, mode in session.items():
            await answer(pilot, app, kind, name, mode)
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ReviewScreen)
        said = [_text(app.screen, "#after"), _text(app.screen, "#findings")]
        refused = not app.previewed().would_start
        plan = app.plan()
        if refused:
            assert app.screen.query_one("#apply", Button).disabled, f"{label}: Apply is enabled for a refusal"
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert not isinstance(app.screen, ResultScreen)
        elif plan:
            await pilot.press("ctrl+s")
            for _ in range(100):
                await pilot.pause(0.02)
                if isinstance(app.screen, ResultScreen):
                    break
            assert isinstance(app.screen, ResultScreen), f"{label}: {_text(app.screen, '#message')}"
            said += [_text(app.screen, "#verified"), _text(app.screen, "#findings"), _text(app.screen, "#next")]
    out = "\n".join(said)
    if refused:
        assert _tree(home) == before, f"{label}: a refused plan was written"
        refused_to_write(capsys, out, home, write_planned(home, plan, tmp_path / "p"), label)
    elif plan:
        held_to_check(capsys, out, home, label)
