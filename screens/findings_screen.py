"""Findings (doctor mode): what is wrong, the safe default fix for each, then Review.  The notes on what will be
done are the plan's (wizard/faces/plan_words.py), redrawn whenever the screen comes back into view.  The repair
itself (plan_repairs: the home judged once more per candidate fix) depends only on the report and the two choices;
the use case (wizard/cases/fixing.py) plans it again only when one of them changed, not on every return to this
screen or every key typed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, RadioSet, Static

from hermes_wizard.core.safetext import visible, visible_lines
from hermes_wizard.faces.plan_words import plan_notes
from hermes_wizard.faces.wording import tilde, verdict_words
from hermes_wizard.plan.answers import split_ids
from hermes_wizard.plan.repairs import RepairOptions
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import PlatformsRequested, ReviewRequested
from hermes_wizard.screens.widgets import Choice, WizardFooter, findings_content, wizard_header

HELP = """# Doctor

What {hermes} would trip over, most serious first, and how each will be fixed. The defaults are the safe
ones `hermes-wizard doctor --fix` uses:

* an open policy without opt-in becomes **pairing** (or allowlist, or an explicit per-platform opt-in: you type
  each platform's name to confirm that anyone who can reach it may use the agent);
* a platform that cannot connect is **disabled**, its credentials kept (`hermes-wizard undo` restores).

**Review** (R) shows the exact changes before anything is written. **Platforms** (P) edits platforms by hand.
"""



class FindingsScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("r", "review", "Review"), Binding("ctrl+r", "review", "Review", show=False),
                Binding("p", "platforms", "Platforms"),
                Binding("escape", "app.quit_wizard", "Quit")]

    def compose(self) -> ComposeResult:
        report = self.wizard.report
        words, ok = verdict_words(report)
        yield wizard_header()
        # the home, the verdict and the buttons stay in view at 80x24; the findings and choices scroll between them
        yield Static(visible_lines(tilde(f"Hermes home: {self.wizard.home}")), classes="title", markup=False)
        yield Static(visible_lines(words), classes="verdict-ok" if ok else "verdict-bad", id="verdict", markup=False)
        with VerticalScroll(id="body"):
            shown = [f for f in report.findings if f.severity != "info"] or report.findings
            lines = [f"{f.severity.glyph} {f.code} {visible(f.platform or 'home')}: {visible(tilde(f.message))}"
                     for f in shown]
            with VerticalScroll(id="findings-box"):  # bounded: the choices below stay in view at 80x24
                yield Static(findings_content(lines) if lines else "No problems found.", id="findings",
                             markup=False)
            if report.violations:
                yield Label("Open policies without opt-in become:", classes="field-label")
                with RadioSet(id="open-policy"):
                    yield Choice("pairing (recommended)", value=True, id="open-pairing")
                    yield Choice("allowlist", id="open-allowlist")
                    yield Choice("open, with the platform's own opt-in", id="open-optin")
            if any(t.dead for t in report.transports.values()):
                yield Label("Platforms that cannot connect:", classes="field-label")
                with RadioSet(id="dead-transport"):
                    yield Choice("disable them (credentials kept)", value=True, id="dead-disable")
                    yield Choice("leave them enabled", id="dead-keep")
            yield Label("Type the name of each platform to open to everyone:", id="confirm-open-label",
                        classes="field-label")
            yield Input(placeholder="e.g. weixin", id="confirm-open")
            yield Static("", id="plan-notes", classes="hint", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Review the fix", variant="primary", id="review")
            yield Button("Platforms", id="platforms")
            yield Button("Quit", id="quit")
        yield WizardFooter()

    def on_mount(self) -> None:
        self._replan()
        choices = self.query(RadioSet)  # the first thing to act on: the first choice, else Review
        (choices.first() if choices else self.query_one("#review", Button)).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_review()  # Enter after typing the names: on to the review, as every input goes on

    def on_screen_resume(self) -> None:
        """Back from a platform's screens: the notes follow the plan as the answers left it."""
        self._replan()

    def _choice(self, set_id: str, default: str) -> str:
        sets = self.query(f"#{set_id}")
        if not sets:
            return default
        pressed = sets.first(RadioSet).pressed_button
        return (pressed.id or "").split("-", 1)[1] if pressed else default

    def _replan(self) -> None:
        options = RepairOptions(open_policy=self._choice("open-policy", "pairing"),
                                dead_transport=self._choice("dead-transport", "disable"))
        session = self.wizard.session
        repair = self.wizard.choose_repair(options, split_ids(self.query_one("#confirm-open", Input).value))
        waiting = session.needs_confirming()
        for widget_id in ("#confirm-open-label", "#confirm-open"):
            self.query_one(widget_id).display = bool(waiting) or options.open_policy == "optin"
        notes = plan_notes(session, repair) + [f"not fixed: {line}" for line in repair.unfixable]
        if waiting:
            notes.insert(0, f"Not opened until you type its name: {', '.join(waiting)} (until then Hermes still "
                            "refuses to start).")
        self.query_one("#plan-notes", Static).update("\n".join(visible(tilde(note)) for note in notes)
                                                     or "Nothing to fix.")

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self._replan()

    def on_input_changed(self, event: Input.Changed) -> None:
        self._replan()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"review": self.action_review, "platforms": self.action_platforms,
         "quit": self.wizard.action_quit_wizard}[event.button.id or "quit"]()

    def action_review(self) -> None:
        self.app.post_message(ReviewRequested())

    def action_platforms(self) -> None:
        self.app.post_message(PlatformsRequested())
