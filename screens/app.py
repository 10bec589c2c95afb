"""The Textual app: owns the state (home, report, pending answers) and is the only
place that applies a plan.  Screens ask and explain; they post answers here.

`WizardApp(home, mode="setup"|"doctor").run()` returns `AppOutcome`; the CLI prints
"No changes were made." when nothing was applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from wizard.plan.answers import build_plan, preview
from wizard.write.apply import ApplyError, ApplyResult, apply_plan
from wizard.core.bundled import stylesheet
from wizard.judge.engine import HomeReport, evaluate
from wizard.plan.changes import Change, Plan

CSS_FILE = stylesheet()


@dataclass(frozen=True)
class AppOutcome:
    applied: bool
    result: ApplyResult | None = None


class WizardApp(App[AppOutcome]):
    TITLE = "hermes-wizard"
    CSS_PATH = str(CSS_FILE)
    BINDINGS = [Binding("f1", "help", "Help"), Binding("question_mark", "help", "Help", show=False),
                Binding("ctrl+q", "quit_wizard", "Quit")]

    def __init__(self, home: Path, profile: str = "default", mode: str = "setup") -> None:
        super().__init__()
        self.home, self.profile, self.mode = home, profile, mode
        self.report: HomeReport = evaluate(home, profile)
        self.answers: dict[tuple[str | None, str], list[Change]] = {}
        self.outcome = AppOutcome(False)

    # -- state ------------------------------------------------------------------------------------------------
    def set_answer(self, platform: str | None, kind: str, changes: list[Change]) -> None:
        """Record one answer ("credentials", "access", "repair", ...); answering the same
        question again replaces the earlier answer."""
        self.answers.pop((platform, kind), None)
        self.answers[(platform, kind)] = list(changes)

    @property
    def pending(self) -> list[Change]:
        return [change for changes in self.answers.values() for change in changes]

    def plan(self) -> Plan:
        return build_plan(self.report, self.pending)

    def previewed(self) -> HomeReport:
        plan = self.plan()
        return preview(self.report, plan) if plan else self.report

    def switch_home(self, home: Path, profile: str) -> None:
        self.home, self.profile = home, profile
        self.report = evaluate(home, profile)
        self.answers = {}

    def apply_pending(self) -> ApplyResult:
        """The one write of the whole app; raises ApplyError with words for the user."""
        plan = self.plan()
        if not plan:
            raise ApplyError("there is nothing to apply")
        result = apply_plan(plan, reason=f"hermes-wizard {self.mode}", facts=self.report.facts)
        self.outcome = AppOutcome(True, result)
        self.report = result.report
        self.answers = {}
        return result

    # -- lifecycle ----------------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        if self.mode == "doctor":
            from screens.findings_screen import FindingsScreen

            self.push_screen(FindingsScreen())
        else:
            from screens.home_screen import HomeScreen

            self.push_screen(HomeScreen())

    def action_help(self) -> None:
        from screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(getattr(self.screen, "HELP", "") or "No help for this screen."))

    def action_quit_wizard(self) -> None:
        self.exit(self.outcome)
