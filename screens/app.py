"""The Textual app: owns the state (home, report, pending answers) and the navigation, and is
the only place that applies a plan.  Screens ask and explain; they post answers here, and post a
message (screens/messages.py) when the user moves on.  This is the only module that imports
screen classes, so screens never import each other.

`WizardApp(home, mode="setup"|"doctor").run()` returns `AppOutcome`; the CLI prints
"No changes were made." when nothing was applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from screens.access_screen import AccessScreen
from screens.findings_screen import FindingsScreen
from screens.help_screen import HelpScreen
from screens.home_screen import HomeScreen
from screens.messages import (
    AccessKept,
    ChangesApplied,
    CredentialsKept,
    PlatformChosen,
    PlatformsRequested,
    ReviewRequested,
)
from screens.platform_screen import PlatformScreen
from screens.platforms_screen import PlatformsScreen
from screens.result_screen import ResultScreen
from screens.review_screen import ReviewScreen
from wizard.core.bundled import stylesheet
from wizard.judge.engine import HomeReport, evaluate
from wizard.plan.answers import build_plan, preview
from wizard.plan.changes import Change, Plan
from wizard.write.apply import ApplyError, ApplyResult, apply_plan

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
        self.push_screen(FindingsScreen() if self.mode == "doctor" else HomeScreen())

    # -- navigation: screens post what happened; only the App knows which screen comes next ---------------------
    def on_platforms_requested(self, message: PlatformsRequested) -> None:
        self.push_screen(PlatformsScreen())

    def on_platform_chosen(self, message: PlatformChosen) -> None:
        self.push_screen(PlatformScreen(message.platform))

    def on_credentials_kept(self, message: CredentialsKept) -> None:
        self.push_screen(AccessScreen(message.platform))

    def on_access_kept(self, message: AccessKept) -> None:
        # Back past the platform's own screens to the list (the bottom two are the default screen and the first).
        while not isinstance(self.screen, PlatformsScreen) and len(self.screen_stack) > 2:
            self.pop_screen()

    def on_review_requested(self, message: ReviewRequested) -> None:
        self.push_screen(ReviewScreen())

    def on_changes_applied(self, message: ChangesApplied) -> None:
        self.push_screen(ResultScreen(message.result))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(getattr(self.screen, "HELP", "") or "No help for this screen."))

    def action_quit_wizard(self) -> None:
        self.exit(self.outcome)
