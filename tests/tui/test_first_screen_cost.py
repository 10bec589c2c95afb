"""The TUI's first screen pays only for what it shows (ARCHITECTURE.md, "Performance targets": the first screen within
1.5x of `import textual.app`; benchmarks/bench_tui.py measures it).  In a fresh interpreter, reaching the first
screen loads none of the screens it does not show (the help screen alone brought Textual's Markdown: markdown_it,
pygments); and the doctor's first screen plans the repairs once, where its mount and its first resume each judged
the home again, as did every return to it and every key typed in its names box; and the footer of keys is built once
per screen, where Textual rebuilt it after each of five bindings signals before the first screen was drawn; and the
start runs without the cycle collector (~100 collections, ~30 ms CPU), which is back on a second later or when the
app ends (unless its host had it off)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Footer, Input, Static
from textual.widgets._footer import FooterKey

from hermes_wizard.cases import fixing
from hermes_wizard.screens.app import START_WITHOUT_COLLECTOR, WizardApp
from hermes_wizard.screens.findings_screen import FindingsScreen

REPO = Path(__file__).resolve().parents[2]
NOT_SHOWN_FIRST = ("help_screen", "access_screen", "platform_screen", "platforms_screen", "review_screen",
                   "result_screen", "confirm_quit")
PROBE = """
import asyncio, sys
from pathlib import Path
from hermes_wizard.screens.app import START_WITHOUT_COLLECTOR, WizardApp

async def main():
    app = WizardApp(Path(sys.argv[1]), mode=sys.argv[2])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        shown = type(app.screen).__name__
        loaded = sorted(sys.modules)  # at the first screen, before anything else is asked of the app
    with open(sys.argv[3], "w") as out:
        out.write("\\n".join([shown, *loaded]))
asyncio.run(main())
"""


@pytest.mark.parametrize("mode, first", [("doctor", "FindingsScreen"), ("setup", "HomeScreen")])
def test_the_first_screen_loads_no_screen_it_does_not_show(demo, tmp_path, mode, first):
    out = tmp_path / "modules.txt"
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(demo), mode, str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert out.exists(), done.stderr[-3000:]
    shown, *loaded = out.read_text().splitlines()
    assert shown == first
    early = [name for name in loaded if name.startswith("markdown_it")
             or name in {f"hermes_wizard.screens.{screen}" for screen in NOT_SHOWN_FIRST}]
    assert not early, f"loaded before they are shown: {early}"


async def test_the_doctors_first_screen_plans_the_repairs_once(demo, monkeypatch):
    planned = []
    real = fixing.plan_repairs

    def counting(report, options, **memo):
        planned.append(options)
        return real(report, options, **memo)

    monkeypatch.setattr(fixing, "plan_repairs", counting)
    app = WizardApp(demo, mode="doctor")
    async with app.run_test(size=(120, 50)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        assert len(planned) == 1, planned
        notes = str(app.screen.query_one("#plan-notes", Static).render())
        app.screen.query_one("#confirm-open", Input).value = "weixin"  # names typed: the same repair
        await pilot.press("p")  # to the platforms and back: the same repair
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert isinstance(app.screen, FindingsScreen)
        assert len(planned) == 1, planned
        app.screen.query_one("#open-allowlist").value = True  # another choice: planned again, and said
        await pilot.pause()
        assert [options.open_policy for options in planned] == ["pairing", "allowlist"]
        assert str(app.screen.query_one("#plan-notes", Static).render()) != notes


def keys_of(footer) -> list[tuple[str, str]]:
    return [(key.key, key.description) for key in footer.query(FooterKey)]


def textual_would_show(footer) -> list[tuple[str, str]]:
    """The keys Textual's Footer.compose builds from the screen's bindings as they are now: the first key of each
    shown action, then the command palette's."""
    active = footer.screen.active_bindings
    first_of_action = {}
    for _, binding, _, _ in active.values():
        if binding.show:
            first_of_action.setdefault(binding.action, (binding.key, binding.description))
    palette = active.get(footer.app.COMMAND_PALETTE_BINDING)
    return [*first_of_action.values(), *([(palette.binding.key, palette.binding.description)] if palette else [])]


@pytest.mark.parametrize("mode", ["doctor", "setup"])
async def test_the_footer_is_rebuilt_only_when_its_keys_change(demo, monkeypatch, mode):
    builds = []  # (footer, the keys it shows after the build)
    real = Footer.recompose

    async def recording(footer):
        await real(footer)
        builds.append((footer, keys_of(footer)))

    monkeypatch.setattr(Footer, "recompose", recording)
    app = WizardApp(demo, mode=mode)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for _ in range(2):  # the first screen, then the platforms
            footer = app.screen.query_one(Footer)
            assert keys_of(footer) == textual_would_show(footer)
            await pilot.press("p" if mode == "doctor" else "enter")
            await pilot.pause()
    same = [keys for (footer, keys), (before, was) in zip(builds[1:], builds) if footer is before and keys == was]
    assert not same, f"{len(builds)} builds, {len(same)} of them for the same keys again: {same[0]}"


@pytest.mark.parametrize("mode", ["doctor", "setup"])
async def test_the_start_runs_without_the_cycle_collector_and_then_with_it(demo, monkeypatch, mode):
    assert gc.isenabled()
    collections = []
    loaded = getattr(WizardApp, "on_load", lambda app: None)

    def count(phase, info):
        if phase == "stop":
            collections.append(info["generation"])

    def load(app):  # the start: from here to the first screen
        loaded(app)
        collections.clear()

    monkeypatch.setattr(WizardApp, "on_load", load, raising=False)
    gc.callbacks.append(count)
    try:
        app = WizardApp(demo, mode=mode)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            started = list(collections)
            await pilot.pause(START_WITHOUT_COLLECTOR + 0.2)
            assert gc.isenabled(), "still without the collector after the start"
        assert not started, f"{len(started)} collections before the first screen was up"
        app = WizardApp(demo, mode=mode)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()  # ends at once: the collector comes back with the app's end
        assert gc.isenabled(), "an app that ended within its start left the collector off"
        gc.disable()  # a host that keeps the collector off (Hermes running the wizard, say) finds it off
        app = WizardApp(demo, mode=mode)
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause(START_WITHOUT_COLLECTOR + 0.2)
            assert not gc.isenabled(), "the app turned on a collector its host had turned off"
        assert not gc.isenabled(), "the app turned on a collector its host had turned off"
    finally:
        gc.callbacks.remove(count)
        gc.enable()
