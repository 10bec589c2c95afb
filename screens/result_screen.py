"""Result: what was written and where the backup is, the verdict read back from disk (all three always in view),
then every finding left, what the service steps did, and the real next step for this home."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Static

from hermes_wizard.core.safetext import as_spoken, visible_lines
from hermes_wizard.faces.outcome import after_apply, restart_lines
from hermes_wizard.faces.wording import open_words, tilde
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.widgets import WizardFooter, findings_content, wizard_header

HELP = """# Applied
The files were written, read back and judged again; the verdict below comes from the files on disk, with
every finding `hermes-wizard check` still reports. `hermes-wizard undo` puts the previous versions back
(they are in the backup folder shown).
"""


class ResultScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.quit_wizard", "Quit"), Binding("enter", "app.quit_wizard", "Done")]

    def __init__(self, applied) -> None:
        super().__init__()
        self.applied = applied
        self.result = applied.result

    def compose(self) -> ComposeResult:
        report = self.result.report
        said = after_apply(self.applied, self.wizard.home, self.wizard.fixing.scope)
        yield wizard_header()
        # the outcome stays in view at 80x24 above what scrolls (findings, service steps, the next step, Done:
        # focused, it scrolled the outcome sentence away once the service steps were listed)
        yield Static(visible_lines(f"Written: {', '.join(self.result.written) or 'no file'}"), classes="title",
                     markup=False)
        yield Static(visible_lines(tilde(f"Backup: {self.result.backup}/")), classes="hint", markup=False)
        if said.hermes:  # the installed Hermes asked on a copy of the files written, as `doctor --fix` asks it
            yield Static(visible_lines(said.hermes), classes="hint", id="hermes-said", markup=False)
        yield Static(visible_lines(said.verdict), classes="verdict-ok" if said.clean else "verdict-bad",
                     id="verified", markup=False)
        with VerticalScroll(id="body"):
            if said.notes:  # first below the verdict: the home created, no Hermes installed
                yield Static(visible_lines("\n".join(said.notes)), id="setting-notes", classes="hint", markup=False)
            opened = open_words(report)
            if opened:
                yield Static(opened, classes="warning-text", id="open-to-everyone", markup=False)
            if said.findings:
                yield Static(findings_content(list(said.findings)), id="findings", markup=False)
            for line in (*self.result.service_lines, *restart_lines(self.result, said.clean)):
                yield Static(visible_lines(line), classes="hint", markup=False)
            next_step = as_spoken(said.next_step)  # `hermes wizard doctor` inside Hermes
            yield Static(visible_lines(next_step), classes="hint", id="next", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Done", variant="primary", id="done")
        yield WizardFooter()

    def on_mount(self) -> None:
        self.query_one("#done", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.wizard.action_quit_wizard()
