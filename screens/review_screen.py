"""Review: the plan as a per-file diff with secrets masked, the service steps (doctor), and what `check`
would say about the home as it will be — its verdict line, every finding, and every platform left open
to everyone, in words.  Apply (Ctrl+S, focused by default) is the only way to write; for a plan after which
Hermes would refuse to start it is off, with why, until the user types "write anyway" (outcome.WRITE_ANYWAY)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Static

from hermes_wizard.core.keyring_store import backend_name, usable_for
from hermes_wizard.core.safetext import visible_lines
from hermes_wizard.faces.outcome import WRITE_ANYWAY, apply_off_words, planned, refusal_words, writes_anyway
from hermes_wizard.faces.wording import open_words, plural
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.service_steps import render_service
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import ChangesApplied
from hermes_wizard.screens.widgets import DiffView, WizardFooter, WrappedCheckbox, findings_content, wizard_header
from hermes_wizard.write.apply import ApplyError

HELP = """# Review
The exact lines that will change, file by file (secrets are shown as ••••••), and what Hermes will decide
with them: the same verdict and findings `hermes-wizard check` will print once they are written. Nothing has
been written yet.
**Apply** (Ctrl+S) backs up every file it touches into `<home>/.wizard-backups/`, writes atomically, reads
the files back and judges them again. In the doctor, the service steps (stop a loop, the gate drop-in,
restart and watch it) run with it when their box is ticked. Esc goes back to change your answers.
If Hermes would refuse to start with these changes, Apply is off until you type `write anyway`.
"""


class ReviewScreen(WizardScreen):
    HELP = HELP
    run_service = True  # the doctor's service steps run with Apply unless their box is unticked
    applying = False  # Apply pressed and its worker not yet back: a key then says nothing new
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "apply", "Apply")]

    def compose(self) -> ComposeResult:
        self.no_keyring = self._no_keyring()  # first: the plan below must not count on a keyring that is not here
        proposal = self.wizard.proposal(self.run_service)  # the service as the steps leave it (a planned gate)
        plan, outlook = proposal.files, proposal.outlook
        self.service_steps, service_notes = proposal.service.steps, proposal.service.unmet
        yield wizard_header()
        files = " and ".join(plan.files())
        yield Static(f"{plural(len(plan.changes), 'change')} in {files}" if plan.changes else "No file changes",
                     classes="title")
        said = planned(outlook, creates_home=proposal.creates_home)
        # the verdict first, above the diff: on 80x24 it stays in view beside the focused Apply
        yield Static(visible_lines(said.verdict), id="after", classes="verdict-ok" if said.clean else "verdict-bad",
                     markup=False)
        if said.notes:  # next to the verdict: the home to be created, no Hermes installed
            yield Static(visible_lines("\n".join(said.notes)), id="setting-notes", classes="hint", markup=False)
        diff = render_diff(plan) if plan.changes else "Nothing to change in the files."
        yield DiffView(diff, id="diff")
        with VerticalScroll(id="outlook"):
            yield from self._where_secrets_go()
            if self.service_steps:
                yield WrappedCheckbox("Also run the service steps below", value=self.run_service, id="run-service")
                yield Static(visible_lines(render_service(self.service_steps)), id="service", markup=False)
            if service_notes:  # a gate the doctor will not install, and why (the line `doctor` prints)
                yield Static(visible_lines("\n".join(service_notes)), id="service-notes", classes="warning-text",
                             markup=False)
            opened = open_words(outlook)
            if opened:
                yield Static(opened, id="open-to-everyone", classes="warning-text", markup=False)
            found = list(said.findings)
            yield Static(findings_content(found) if found else "No findings.", id="findings", markup=False)
        self.refused = not outlook.would_start  # Apply stays off until "write anyway" is typed
        self.anything = bool(plan or self.service_steps)
        if self.refused:
            yield Static(refusal_words(outlook), id="refusal", classes="error-text", markup=False)
            # the bare words as placeholder looked typed already: say what to do with them (drawn italic)
            yield Input(placeholder=f"type {WRITE_ANYWAY} to turn Apply on", id="write-anyway")
        yield Static("", id="message", classes="error-text", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Apply", variant="success", id="apply",
                         disabled=self.refused or not self.anything)
            yield Button("Back", id="back")
        yield WizardFooter()

    def _no_keyring(self) -> str | None:
        """With typed secrets: why no OS keyring is usable here (then they go to .env, whatever was asked)."""
        session = self.wizard.session
        if not session.typed_secrets():
            return None
        why = usable_for(session.report.home)
        if why:
            session.secrets_in_keyring = False  # `--secrets keyring` cannot be honoured: said, never a failed store
        return why

    def _where_secrets_go(self):
        """With typed secrets: a box to keep them in the OS keyring where one is usable, else one line."""
        session = self.wizard.session
        if not session.typed_secrets():
            return
        if self.no_keyring:
            yield Static(visible_lines(f"The secrets go to .env, mode 0600: {self.no_keyring}."),
                         id="keyring-none", markup=False)
            return
        yield WrappedCheckbox(f"Keep the secrets in the OS keyring ({backend_name()}) instead of .env",
                       value=session.secrets_in_keyring, id="keep-in-keyring")

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        if event.checkbox.id == "run-service" and event.value != self.run_service:
            self.run_service = event.value
            self.refresh(recompose=True)  # the verdict and findings with or without the gate
            return
        if event.checkbox.id == "keep-in-keyring" and event.value != self.wizard.session.secrets_in_keyring:
            self.wizard.session.secrets_in_keyring = event.value
            self.refresh(recompose=True)  # the diff, the verdict and the findings follow the choice

    def on_mount(self) -> None:
        apply = self.query_one("#apply", Button)
        (apply if not apply.disabled else self.query_one("#back", Button)).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Only the typed words turn Apply on for a plan Hermes would refuse (never a default, never a key)."""
        if event.input.id == "write-anyway":
            self.query_one("#apply", Button).disabled = not writes_anyway(event.value)
            self.query_one("#message", Static).update("")  # a word about an earlier try is stale now

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "write-anyway":
            self.action_apply()  # does nothing while Apply is off

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_apply() if event.button.id == "apply" else self.app.pop_screen()

    def action_apply(self) -> None:
        """Apply — or, while Apply is off, say why (a mistyped confirmation, nothing to apply); never silent."""
        if self.query_one("#apply", Button).disabled:
            if not self.applying:
                typed = self.query("#write-anyway")
                self.query_one("#message", Static).update(apply_off_words(
                    anything=self.anything, refused=self.refused,
                    typed=typed.first(Input).value if typed else ""))
            return
        boxes = self.query("#run-service")
        run_service = bool(boxes) and boxes.first(Checkbox).value
        self.applying = True
        self.query_one("#apply", Button).disabled = True
        self.query_one("#message", Static).update("Applying…" + (" then watching the service stay up."
                                                                if run_service else ""))
        self.run_worker(lambda: self._apply(run_service), thread=True, exclusive=True)

    def _apply(self, run_service: bool) -> None:
        """In a worker thread: a restart is watched for seconds, and the screen must keep drawing."""
        try:
            applied = self.wizard.apply_pending(run_service)
        except ApplyError as exc:
            self.app.call_from_thread(self._failed, str(exc))
            return
        self.app.call_from_thread(self.app.post_message, ChangesApplied(applied))

    def _failed(self, words: str) -> None:
        self.applying = False
        self.query_one("#message", Static).update(visible_lines(words))
        self.query_one("#apply", Button).disabled = False
