"""The Textual app: owns the use case (wizard/cases/fixing.py `Fixing`: the home judged, the session of answers, the
proposal and its outlook) and the navigation, and is the only place that applies a plan.  Screens ask and
explain; they post answers here, and post a message (screens/messages.py) when the user moves on.  This is the
only module that imports screen classes, so screens never import each other.

`WizardApp(home, mode="setup"|"doctor").run()` returns `AppOutcome`; the CLI prints
"No changes were made." when nothing was applied.

The first screen (findings for doctor, home for setup) is imported at the top; every other screen is imported
lazily, when it is first pushed: together they cost ~40 ms CPU of the first screen's start (the help screen alone
brings Textual's Markdown: markdown_it, pygments), against ARCHITECTURE.md's 1.5x of `import textual.app`
(benchmarks/bench_tui.py).  For the same reason the writer and the saving of answers are imported lazily, when
the user applies.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported, SystemCommand
from textual.binding import Binding

from hermes_wizard.cases.fixing import OFFERED_SERVICE, Applied, DoctorChoices, Fixing, Proposal
from hermes_wizard.core.bundled import stylesheet
from hermes_wizard.core.safetext import scrubber
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.faces.handover import hand_over
from hermes_wizard.faces.outcome import planned
from hermes_wizard.faces.wording import verdict_words
from hermes_wizard.judge.engine import HomeReport
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.plan.changes import Plan
from hermes_wizard.plan.repairs import Repair, RepairOptions
from hermes_wizard.plan.session import Session
from hermes_wizard.screens.commands import WizardCommands
from hermes_wizard.screens.findings_screen import FindingsScreen
from hermes_wizard.screens.home_screen import HomeScreen
from hermes_wizard.screens.messages import (
    AccessKept,
    ChangesApplied,
    CredentialsKept,
    FindingsRequested,
    HomeReread,
    PairingRequested,
    PlatformChosen,
    PlatformsRequested,
    ReviewRequested,
)
from hermes_wizard.screens.widgets import PlainPalette

if TYPE_CHECKING:
    from textual.screen import Screen

    from hermes_wizard.write.apply import ApplyResult

CSS_FILE = stylesheet()
START_WITHOUT_COLLECTOR = 1.0  # seconds: the start runs without the cycle collector (WizardApp.on_load)
# Theme colours that become the foreground under NO_COLOR (see WizardApp.get_css_variables).
NO_COLOR_AS_FOREGROUND = ("error", "text-error", "warning", "text-warning", "success", "text-success",
                          "text-muted", "text-accent", "text-primary", "text-secondary", "footer-key-foreground",
                          "block-cursor-background", "markdown-h1-color", "markdown-h2-color", "markdown-h3-color",
                          "markdown-h6-color")
# Keys shown by name in the footer and the keys panel (Textual draws ⏎, ⇥, ↑ and friends).
KEY_WORDS = {"enter": "Enter", "escape": "Esc", "tab": "Tab", "up": "Up", "down": "Down", "left": "Left",
             "right": "Right", "backspace": "Backspace", "delete": "Del", "space": "Space", "pageup": "PgUp",
             "pagedown": "PgDn", "home": "Home", "end": "End", "question_mark": "?", "minus": "-", "plus": "+"}


@value_class
class AppOutcome(Value):
    applied: bool
    result: ApplyResult | None = None
    saved: Path | None = None  # the answers file written (setup --save-answers)
    exit_code: int = 0  # the one exit status of the outcome (wizard/cases/fixing.py outcome_code)


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
        self.fixing = Fixing(home, profile, mode, keyring=keyring)
        # the doctor's choices as the Findings screen last set them (setup: none)
        self.choices = DoctorChoices(service=OFFERED_SERVICE) if mode == "doctor" else None
        self.outcome = AppOutcome(False)
        self._collector_paused = False  # the cycle collector is off for the start (on_load)

    # -- looks: without colour, and without glyphs a terminal font may lack -----------------------------------------
    def get_css_variables(self) -> dict[str, str]:
        """Under NO_COLOR every semantic colour is the foreground: greyed, red and amber came out dimmer than a
        label (the refusing verdict 2.7:1, errors 5.9:1, footer keys 6.4:1, the help's headings 2.9:1), and the
        blue cursor of a list or a choice left its words at 4.8:1; emphasis is carried by bold and reverse
        instead (the cursor is the foreground behind dark words), and the stylesheet's `:nocolor` rules do the
        same for buttons and placeholders (assets/wizard.tcss)."""
        variables = super().get_css_variables()
        if self.no_color:
            for name in NO_COLOR_AS_FOREGROUND:
                variables[name] = variables["foreground"]
        return variables

    def get_key_display(self, binding: Binding) -> str:
        """Keys by their names (Enter, Esc, Up), not the arrows and symbols Textual draws by default."""
        if binding.key_display:
            return binding.key_display
        modifiers, key = binding.parse_key()
        if key not in KEY_WORDS:
            return super().get_key_display(binding)
        return "+".join([*(m.title() for m in modifiers), KEY_WORDS[key]])

    def action_command_palette(self) -> None:
        if self.use_command_palette and not PlainPalette.is_open(self):  # type: ignore[arg-type]
            self.push_screen(PlainPalette(id="--command-palette"))

    # -- state: the use case (wizard/cases/fixing.py) and its session hold every answer ----------------------
    @property
    def session(self) -> Session:
        return self.fixing.session

    @property
    def report(self) -> HomeReport:
        return self.fixing.report

    def plan(self) -> Plan:
        return self.session.plan()

    def previewed(self) -> HomeReport:
        return self.session.outlook()

    def verdict_now(self) -> tuple[str, bool]:
        """The verdict line for the answers so far, in `check`'s words, and whether `check` would call it clean:
        of the home as the plan would leave it ("After these changes: …", as Review says it) once an answer
        changes anything, else of the home as read (as Home and Findings say it)."""
        if not self.plan():
            return verdict_words(self.report)
        said = planned(self.previewed())
        return said.verdict, said.clean

    def choose_repair(self, options: RepairOptions, confirmed: list[str]) -> Repair:
        """The doctor's repair for these options, with the platforms whose name was typed; the notes and the
        plan follow it (the service steps are planned for the review only: they prove the gate by running it)."""
        assert self.choices is not None  # only the doctor has a repair
        self.choices = replace(self.choices, repair=options, confirmed=frozenset(confirmed))
        repair = self.fixing.propose(replace(self.choices, service=None)).repair
        assert repair is not None
        return repair

    def proposal(self, run_service: bool = True) -> Proposal:
        """What Apply would write and run (setup: no repair, no service steps), and its outlook."""
        return self.fixing.propose(None if self.choices is None else replace(self.choices, run_service=run_service))

    def switch_home(self, home: Path, profile: str) -> None:
        self.home, self.profile = home, profile
        self.fixing = Fixing(home, profile, self.mode, keyring=self.keyring)

    def apply_pending(self, run_service: bool = True) -> Applied:
        """The one write of the whole app; raises ApplyError with words for the user."""
        from hermes_wizard.write.apply import ApplyError
        from hermes_wizard.write.saved_answers import SavedAnswersError, save_answers

        proposal = self.proposal(run_service)
        if not proposal.plan:
            raise ApplyError("there is nothing to apply")
        saved = None
        if self.save_answers:  # what was chosen, before apply spends the answers; nothing applied if it fails
            try:
                saved = save_answers(self.session, self.save_answers)
            except SavedAnswersError as exc:
                raise ApplyError(f"{exc}; nothing was written") from None
        applied = self.fixing.apply(proposal, reason=f"hermes-wizard {self.mode}")
        self.outcome = AppOutcome(True, applied.result, saved, applied.exit_code)
        return applied

    # -- lifecycle ----------------------------------------------------------------------------------------------
    def on_load(self) -> None:
        """The start runs without the cycle collector: building the first screen (hundreds of Textual objects)
        set off ~100 collections, ~30 ms CPU of it.  Reference counting still frees what is dropped; the
        collector is back on a second later (the first screen is up in a third of that) or when the app ends,
        unless it was off already (a host process, such as Hermes running the wizard, may keep it off)."""
        if gc.isenabled():
            gc.disable()
            self.set_timer(START_WITHOUT_COLLECTOR, self._collector_back)
            self._collector_paused = True

    def _collector_back(self) -> None:
        if self._collector_paused:
            self._collector_paused = False
            gc.enable()

    def on_unmount(self) -> None:
        self._collector_back()

    def on_mount(self) -> None:
        self.push_screen(FindingsScreen() if self.mode == "doctor" else HomeScreen())

    # -- navigation: screens post what happened; only the App knows which screen comes next ---------------------
    def on_platforms_requested(self, message: PlatformsRequested) -> None:
        from hermes_wizard.screens.platforms_screen import PlatformsScreen

        self.push_screen(PlatformsScreen())

    def on_platform_chosen(self, message: PlatformChosen) -> None:
        # From the list, or from the palette anywhere: the platform's screens always sit on the list, so
        # Esc and "Keep choice" come back to it (and to its cursor).
        from hermes_wizard.screens.platform_screen import PlatformScreen
        from hermes_wizard.screens.platforms_screen import PlatformsScreen

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
        from hermes_wizard.screens.access_screen import AccessScreen

        self.push_screen(AccessScreen(message.platform))

    def on_access_kept(self, message: AccessKept) -> None:
        # Back past the platform's own screens to the list (the bottom two are the default screen and the first).
        from hermes_wizard.screens.platforms_screen import PlatformsScreen

        while not isinstance(self.screen, PlatformsScreen) and len(self.screen_stack) > 2:
            self.pop_screen()

    def on_review_requested(self, message: ReviewRequested) -> None:
        from hermes_wizard.screens.result_screen import ResultScreen
        from hermes_wizard.screens.review_screen import ReviewScreen

        if not isinstance(self.screen, (ReviewScreen, ResultScreen)):  # after Apply there is nothing to review
            self.push_screen(ReviewScreen())

    def on_changes_applied(self, message: ChangesApplied) -> None:
        from hermes_wizard.screens.result_screen import ResultScreen

        self.push_screen(ResultScreen(message.applied))

    def on_pairing_requested(self, message: PairingRequested) -> None:
        """Hand the terminal to Hermes's own login (faces/handover.py: its own pty, its own Ctrl+C; then how it
        ended, what it wrote, and Enter before the redraw), then read the home again keeping every answer: the
        platform's state (and its finding) changes only if the login really wrote its credentials."""
        login, secrets = message.login, scrubber(secret_values(self.report.snapshot))
        try:
            with self.suspend():
                print(login.says, flush=True)
                back = hand_over(login, Path(self.report.home), wait=True, redact=secrets)
        except SuspendNotSupported:
            self.screen.post_message(HomeReread(f"This terminal cannot be handed over; in another terminal run: "
                                                f"HERMES_HOME={self.home} {login.shown}"))
            return
        self.fixing.logged_in(back.shown, back.wrote)  # read again; what it wrote is named when quitting
        transport = self.report.transports.get(login.platform)
        state = transport.detail if transport is not None else "state unknown"
        said = back.words(scrubber(secret_values(self.report.snapshot)), lines=4, named=3)
        said[0] += f" Now: {state}."  # first: the screen above it may leave room for little more
        self.screen.post_message(HomeReread("\n".join(said)))

    def action_help(self) -> None:
        from hermes_wizard.screens.help_screen import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            text = getattr(self.screen, "HELP", "") or "No help for this screen."
            self.push_screen(HelpScreen(text.replace("{hermes}", self.judged_hermes())))

    def judged_hermes(self) -> str:
        """The Hermes this home is judged as, in words for the help texts ("Hermes 0.18.2")."""
        facts = self.report.facts
        judged = facts.hermes if facts is not None else None
        return f"Hermes {judged.judged_as}" if judged is not None else "Hermes"

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's own palette commands, its Quit asking first like Ctrl+Q (it exited at once, answers lost)."""
        for command in super().get_system_commands(screen):
            if command.title == "Quit":
                command = SystemCommand("Quit", "Quit (asks first when changes would be lost)",
                                        self.action_quit_wizard)
            yield command

    async def action_quit(self) -> None:
        """Textual's quit action (bound wherever Textual binds it) asks like Ctrl+Q too."""
        self.action_quit_wizard()

    def action_quit_wizard(self) -> None:
        """Quit — after asking, when answers would be lost (Ctrl+Q, Ctrl+C and Esc on the first screen)."""
        from hermes_wizard.screens.confirm_quit import ConfirmQuit

        if isinstance(self.screen, ConfirmQuit):  # asked already: a second Ctrl+Q means it
            self.exit(self.outcome)
            return
        question = self.fixing.quit_question()
        if question is None:
            self.exit(self.outcome)
            return

        def decided(discard: bool | None) -> None:
            if discard:
                self.exit(self.outcome)

        self.push_screen(ConfirmQuit(question), decided)
