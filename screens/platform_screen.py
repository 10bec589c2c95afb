"""Platform: its credentials as masked inputs validated as you type, and its state on
disk in words, with the command that fixes it."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Static

from hermes_wizard.core.safetext import visible_lines
from hermes_wizard.faces.pair_now import can_pair, login_for, offer_words
from hermes_wizard.faces.sources import credentials_from
from hermes_wizard.faces.wording import disk_words, platform_title
from hermes_wizard.hermes.loader.catalog import Spec
from hermes_wizard.plan.changes import is_secret_name
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import CredentialsKept, HomeReread, PairingRequested
from hermes_wizard.screens.widgets import WizardFooter, verdict_line, wizard_header

HELP = """# Platform

Type the platform's credentials. Secret fields are masked; leave a field empty to keep what is already set.
A red border means the value cannot be right (a Telegram token looks like `123456789:AA…`).

The state line says what is on disk: for WhatsApp, whether the bridge is paired (`creds.json`); for Weixin,
whether a token exists. Each comes with the command that fixes it.

**Next** (Ctrl+N, or Enter in the last field) chooses who may use the agent on this platform. Esc goes back;
what you typed is kept.
"""

class PlatformScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "back", "Back"), Binding("ctrl+n", "next", "Next")]

    def __init__(self, platform: str) -> None:
        super().__init__()
        self.platform = platform

    @property
    def spec(self) -> Spec:
        """The platform as the judged Hermes version knows it (its model's catalog)."""
        return self.wizard.report.model.platforms()[self.platform]

    def compose(self) -> ComposeResult:
        report = self.wizard.report
        yield wizard_header()
        yield verdict_line(*self.wizard.verdict_now())
        with VerticalScroll(id="body"):
            yield Static(platform_title(report.model.platforms()[self.platform]), classes="title", markup=False)
            yield Static(visible_lines(disk_words(report, self.platform)), id="state", classes="hint", markup=False)
            yield Static(credentials_from(self.platform), id="source", classes="hint", markup=False)
            typed = self.wizard.session.answer(self.platform).typed
            for key in self._fields():
                present = bool(report.effective.environ.get(key, "").strip())
                yield Label(key, classes="field-label")
                yield Input(value=typed.get(key, ""), placeholder="set — leave empty to keep it" if present
                            else "not set", password=is_secret_name(key), id=f"field-{key}", valid_empty=True)
                yield Static("", id=f"error-{key}", classes="error-text", markup=False)
            if can_pair(self.platform):
                yield Static("", id="pair-message", classes="warning-text", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Next: access", variant="primary", id="next")
                if can_pair(self.platform):
                    yield Button(offer_words(self.platform), id="pair")
                yield Button("Back", id="back")
        yield WizardFooter()

    def _fields(self) -> tuple[str, ...]:
        return tuple(key for key in self.spec.credentials if not key.endswith("_ENABLED"))

    def on_mount(self) -> None:
        fields = self.query(Input)
        # the first thing to act on: a field, or Next when there is nothing to type (WhatsApp pairs by QR)
        (fields.first() if fields else self.query_one("#next", Button)).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Every keystroke is kept in the session as a draft: a revisit or Esc loses nothing."""
        key = (event.input.id or "").removeprefix("field-")
        problem = self.wizard.session.type_value(self.platform, key, event.value)
        event.input.set_class(problem is not None, "-invalid")
        self.query_one(f"#error-{key}", Static).update(problem or "")

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """A field left: the verdict follows what was typed in it (a valid credential is planned; judged once per
        field left, not per keystroke)."""
        if isinstance(event.widget, Input):
            words, ok = self.wizard.verdict_now()
            verdict = self.query_one("#verdict", Static)
            verdict.update(visible_lines(words))
            verdict.set_classes("verdict-ok" if ok else "verdict-bad")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter advances: to the next field, and from the last one to Next."""
        fields = list(self.query(Input))
        at = fields.index(event.input) if event.input in fields else len(fields) - 1
        if at + 1 < len(fields):
            fields[at + 1].focus()
        else:
            self.action_next()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "pair":
            self.action_pair()
        else:
            self.action_next() if event.button.id == "next" else self.action_back()

    def action_pair(self) -> None:
        """Hermes's own login, in this terminal (the App hands it over); or why not, and what to run where."""
        login = login_for(self.wizard.report, self.platform)
        if isinstance(login, str):
            self.query_one("#pair-message", Static).update(visible_lines(login))
            return
        self.app.post_message(PairingRequested(login))

    def on_home_reread(self, message: HomeReread) -> None:
        self.query_one("#state", Static).update(visible_lines(disk_words(self.wizard.report, self.platform)))
        self.query_one("#pair-message", Static).update(visible_lines(message.said))  # it quotes the home

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_next(self) -> None:
        problems = self.wizard.session.credential_problems(self.platform)
        for key in self._fields():
            if key in problems:
                self.query_one(f"#error-{key}", Static).update(problems[key])
                self.query_one(f"#field-{key}", Input).focus()
                return
        self.app.post_message(CredentialsKept(self.platform))
