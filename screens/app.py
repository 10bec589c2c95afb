"""The Textual app: owns the session (wizard/plan/session.py: the answers, the plan, the outlook) and
the navigation, and is the only place that applies a plan.  Screens ask and explain; they post answers here, and post a
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
from screens.commands import WizardCommands
from screens.confirm_quit import ConfirmQuit
from screens.findings_screen import FindingsScreen
from screens.help_screen import HelpScreen
from screens.home_screen import HomeScreen
from screens.messages import (
    AccessKept,
    ChangesApplied,
    CredentialsKept,
    FindingsRequested,
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
from wizard.plan.changes import Plan
from wizard.plan.session import Session
from wizard.write.apply import ApplyError, ApplyResult, apply_plan

CSS_FILE = stylesheet()


@dataclass(frozen=True)
class AppOutcome:
    applied: bool
    result: ApplyResult | None = None
    saved: Path | None = None  # the answers file written (setup --save-answers)


class WizardApp(App[AppOutcome]):
    TITLE = "hermes-wizard"
    COMMANDS = App.COMMANDS | {WizardCommands}  # the wizard's own actions, and Textual's (theme, keys, quit)
    CSS_PATH = str(CSS_FILE)
    BINDINGS = [Binding("f1", "help", "Help"), Binding("question_mark", "help", "Help", show=False),
                Binding("ctrl+q", "quit_wizard", "Quit"),
                Binding("ctrl+c", "quit_wizard", "Quit", show=False, priority=True)]

    def __init__(self, home: Path, profile: str = "default", mode: str = "setup", *,
                 save_answers: str | None = None, keyring: bool = False) -> None:
        super().__init__()
        self.home, self.profile, self.mode = home, profile, mode
        self.save_answers, self.keyring = save_answers, keyring  # setup --save-answers FILE, --secrets keyring
        self.session = self._new_session()
        self.outcome = AppOutcome(False)

    def _new_session(self) -> Session:
        session = Session(evaluate(self.home, self.profile), self.mode)
        session.secrets_in_keyring = self.keyring
        return session

    # -- state: the session (wizard/plan/session.py) holds every answer -----------------------------------------
    @property
    def report(self) -> HomeReport:
        return self.session.report

    def plan(self) -> Plan:
        return self.session.plan()

    def previewed(self) -> HomeReport:
        return self.session.outlook()

    def switch_home(self, home: Path, profile: str) -> None:
        self.home, self.profile = home, profile
        self.session = self._new_session()

    def apply_pending(self, service_steps=()) -> ApplyResult:
        """The one write of the whole app; raises ApplyError with words for the user."""
        plan = self.plan().with_service(service_steps)
        if not plan:
            raise ApplyError("there is nothing to apply")
        saved = None
        if self.save_answers:  # what was chosen, before apply spends the answers; nothing applied if it fails
            from wizard.write.saved_answers import SavedAnswersError, save_answers

            try:
                saved = save_answers(self.session, self.save_answers)
            except SavedAnswersError as exc:
                raise ApplyError(f"{exc}; nothing was written") from None
        result = apply_plan(plan, reason=f"hermes-wizard {self.mode}", facts=self.report.facts)
        self.outcome = AppOutcome(True, result, saved)
        self.session.applied(result.report)
        return result

    # -- lifecycle ----------------------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self.push_screen(FindingsScreen() if self.mode == "doctor" else HomeScreen())

    # -- navigation: screens post what happened; only the App knows which screen comes next ---------------------
    def on_platforms_requested(self, message: PlatformsRequested) -> None:
        self.push_screen(PlatformsScreen())

    def on_platform_chosen(self, message: PlatformChosen) -> None:
        # From the list, or from the palette anywhere: the platform's screens always sit on the list, so
        # Esc and "Keep choice" come back to it (and to its cursor).
        if any(isinstance(screen, PlatformsScreen) for screen in self.screen_stack):
            while not isinstance(self.screen, PlatformsScreen):
                self.pop_screen()
        else:
            self.push_screen(PlatformsScreen())
        self.push_screen(PlatformScreen(message.platform))

    def on_findings_requested(self, message: FindingsRequested) -> None:
        if any(isinstance(screen, FindingsScreen) for screen in self.screen_stack):
            while not isinstance(self.screen, FindingsScreen):
                self.pop_screen()

    def on_credentials_kept(self, message: CredentialsKept) -> None:
        self.push_screen(AccessScreen(message.platform))

    def on_access_kept(self, message: AccessKept) -> None:
        # Back past the platform's own screens to the list (the bottom two are the default screen and the first).
        while not isinstance(self.screen, PlatformsScreen) and len(self.screen_stack) > 2:
            self.pop_screen()

    def on_review_requested(self, message: ReviewRequested) -> None:
        if not isinstance(self.screen, (ReviewScreen, ResultScreen)):  # after Apply there is nothing to review
            self.push_screen(ReviewScreen())

    def on_changes_applied(self, message: ChangesApplied) -> None:
        self.push_screen(ResultScreen(message.result))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(getattr(self.screen, "HELP", "") or "No help for this screen."))

    def action_quit_wizard(self) -> None:
        """Quit — after asking, when answers would be lost (Ctrl+Q, Ctrl+C and Esc on the first screen)."""
        pending = self.session.pending() if not isinstance(self.screen, ConfirmQuit) else 0
        if not pending:
            self.exit(self.outcome)
            return
        noun = "change" if pending == 1 else "changes"

        def decided(discard: bool | None) -> None:
            if discard:
                self.exit(self.outcome)

        self.push_screen(ConfirmQuit(f"Discard {pending} {noun}? Nothing has been written yet."), decided)
