"""Every screen derives from the plan (one outcome, whatever screen says it): after every choice in the doctor, each
platform is looked at on Findings (its notes) and on its Access screen (the choice shown first), and what they say is
compared with the plan's change list and with `check --format json` on the planned files.  Before, Weixin answered
"open" on its Access screen left Findings saying "weixin: dm_policy open → pairing" while Review wrote
WEIXIN_ALLOW_ALL_USERS=true, and Access offered what was on disk (open) where the repair plans pairing."""

from __future__ import annotations

import re

import pytest
from one_outcome import IDS, write_planned
from textual.widgets import DataTable, Input, RadioSet, Static

from hermes_wizard.screens.access_screen import AccessScreen
from hermes_wizard.screens.app import WizardApp
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.platform_screen import PlatformScreen
from hermes_wizard.screens.platforms_screen import PlatformsScreen

PLATFORMS = ("telegram", "weixin", "whatsapp")
CHOICES = [
    ("findings", "#open-optin"),
    ("type", "weixin whatsapp"),
    ("access", "weixin", "open"),
    ("access", "whatsapp", "pairing"),
    ("findings", "#dead-keep"),
    ("access", "weixin", "pairing"),
    ("findings", "#open-allowlist"),
    ("access", "telegram", "disabled"),
    ("access", "whatsapp", "disabled"),
    ("findings", "#open-pairing"),
    ("access", "telegram", "open"),
]


async def to_findings(pilot, app) -> None:
    while not isinstance(app.screen, FindingsScreen):
        app.pop_screen()
        await pilot.pause()


async def open_access(pilot, app, name: str) -> None:
    await to_findings(pilot, app)
    await pilot.press("p")
    await pilot.pause()
    assert isinstance(app.screen, PlatformsScreen)
    table = app.screen.query_one(DataTable)
    table.move_cursor(row=table.get_row_index(name))
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, PlatformScreen)
    await pilot.press("ctrl+n")
    await pilot.pause()
    assert isinstance(app.screen, AccessScreen)


async def choose(pilot, app, choice) -> None:
    if choice[0] == "findings":
        await to_findings(pilot, app)
        app.screen.query_one(choice[1]).value = True
    elif choice[0] == "type":
        await to_findings(pilot, app)
        app.screen.query_one("#confirm-open", Input).value = choice[1]
    else:
        _, name, mode = choice
        await open_access(pilot, app, name)
        app.screen.query_one(f"#mode-{mode}").value = True
        await pilot.pause()
        app.screen.query_one("#ids", Input).value = IDS[name] if mode == "allowlist" else ""
        app.screen.query_one("#confirm", Input).value = name if mode == "open" else ""
        await pilot.pause()
        await pilot.press("ctrl+s")
    await pilot.pause()


def planned_rows(demo, plan, where) -> dict[str, dict]:
    """`check --format json`'s platform rows for the planned files (the engine's as_json: inside a running
    App, stdout is Textual's)."""
    from hermes_wizard.judge.engine import evaluate

    copy = write_planned(demo, plan, where)
    return {row["name"]: row for row in evaluate(copy).as_json()["platforms"]}


def notes_agree(name: str, notes: str, changes) -> list[str]:
    """What Findings says about `name`, against the plan's changes for it."""
    mine = [(c.key, c.after) for c in changes if c.platform == name]
    problems = []
    for line in notes.splitlines():
        if line.startswith(f"{name} (your answer): "):
            said = line.split(": ", 1)[1]
            for key, after in mine:
                if f"{key} " not in said or not said.split(f"{key} ", 1)[1].split(";")[0].endswith(f"→ {after}"):
                    problems.append(f"{line!r} does not say {key} → {after}")
        elif line.startswith(f"{name}: "):
            if target := re.search(r"policy open → (\w+)", line):
                if not any(after == target.group(1) for _, after in mine):
                    problems.append(f"{line!r}, but the plan sets no {target.group(1)} for {name}: {mine}")
            if "will be disabled" in line and not any(str(after).lower() == "false" for _, after in mine):
                problems.append(f"{line!r}, but the plan does not disable {name}: {mine}")
            if opened := re.search(r"will stay open, (\w+)=true", line):
                if (opened.group(1), "true") not in mine:
                    problems.append(f"{line!r}, but the plan does not set {opened.group(1)}=true: {mine}")
    if mine and f"{name}:" not in notes and f"{name} (your answer)" not in notes:
        problems.append(f"the plan changes {name} ({mine}) and Findings says nothing of it")
    return problems


# The steps are looked at in three runs, each replaying the choices before its own: one run looking at all
# eleven took 2-3 minutes of one worker (mostly Textual laying out screens); three spread over the workers.
# Looking at a step costs ~3 s (three Access screens), replaying one ~1 s: the fast loop (-m "not slow") looks at
# two steps (an open typed on Access, a platform disabled on Access) in one run, the whole suite at all eleven.
LOOKED_AT = [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10)]
RUNS = [pytest.param(steps, marks=pytest.mark.slow) for steps in LOOKED_AT] + [
    pytest.param((2, 7), marks=pytest.mark.stand_in)]


@pytest.mark.parametrize("looked_at", RUNS, ids=lambda steps: "steps" + "-".join(map(str, steps)))
async def test_findings_and_access_say_what_the_plan_does_after_every_choice(demo, tmp_path, looked_at):
    app = WizardApp(demo, mode="doctor")
    problems = []
    async with app.run_test(size=(120, 50)) as pilot:
        for step, choice in enumerate(CHOICES[:max(looked_at) + 1]):
            await choose(pilot, app, choice)
            if step not in looked_at:
                continue
            plan = app.plan()
            rows = planned_rows(demo, plan, tmp_path / f"step{step}")
            was = {row.name: row.enabled for row in app.report.rows}
            await to_findings(pilot, app)
            notes = str(app.screen.query_one("#plan-notes", Static).render())
            for name in PLATFORMS:
                problems += [f"after {choice}: Findings: {p}" for p in notes_agree(name, notes, plan.changes)]
                await open_access(pilot, app, name)
                pressed = app.screen.query_one("#access-choices", RadioSet).pressed_button
                shown = (pressed.id or "").removeprefix("mode-") if pressed else ""
                row = rows[name]
                if not row["enabled"]:
                    expected = {"disabled"} if was.get(name) else {"pairing"}
                elif row["opted_in"] or "open" in (row["dm_policy"], row["group_policy"]):
                    expected = {"open"}
                else:
                    expected = {"pairing", "allowlist"}
                if shown not in expected:
                    problems.append(f"after {choice}: {name}'s Access shows {shown!r}; the plan leaves it "
                                    f"{sorted(expected)} ({row})")
    assert not problems, "\n".join(problems)


def test_the_runs_look_at_every_step_once():
    assert [step for steps in LOOKED_AT for step in steps] == list(range(len(CHOICES)))
