"""Result: where the backup is, the verdict read back from disk with every finding left, what the
service steps did, and the real next step for this home."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Static

from screens.base import WizardScreen
from screens.widgets import findings_content, wizard_header
from wizard.core.safetext import as_spoken, visible_lines
from wizard.faces.wording import findings_lines, open_words, restart_hint, tilde

HELP = """# Applied
The files were written, read back and judged again; the verdict below comes from the files on disk, with
every finding `hermes-wizard check` still reports. `hermes-wizard undo` puts the previous versions back
(they are in the backup folder shown).
"""


class ResultScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.quit_wizard", "Quit"), Binding("enter", "app.quit_wizard", "Done")]

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        report = self.result.report
        starts = report.would_start
        clean = starts and not report.errors()
        yield wizard_header()
        with VerticalScroll(id="body"):
            yield Static(visible_lines(f"Written: {', '.join(self.result.written) or 'no file'}"), classes="title",
                         markup=False)
            yield Static(visible_lines(tilde(f"Backup: {self.result.backup}/")), classes="hint", markup=False)
            head = "Verified: " if clean else ("Written; the gateway will start, but: " if starts else "Written, but: ")
            from wizard.judge.report import verdict_clause

            yield Static(visible_lines(f"{head}{verdict_clause(report)}."), classes="verdict-ok" if clean
                         else "verdict-bad", id="verified", markup=False)
            opened = open_words(report)
            if opened:
                yield Static(opened, classes="warning-text", id="open-to-everyone", markup=False)
            left = findings_lines(report) if not clean else [line for line in findings_lines(report)
                                                               if not line.startswith("·")]
            if left:
                yield Static(findings_content(left), id="findings", markup=False)
            for line in self.result.service_lines + [("Verified: " if o.ok else "Not fixed: ") + o.words + "."
                                                     for o in self.result.restarts]:
                yield Static(visible_lines(line), classes="hint", markup=False)
            next_step = as_spoken(tilde(self._next_step(starts)))  # `hermes wizard doctor` inside Hermes
            yield Static(visible_lines(next_step), classes="hint", id="next", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Done", variant="primary", id="done")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#done", Button).focus()

    def _next_step(self, starts: bool) -> str:
        if not starts:
            return "Next: run hermes-wizard doctor again to see what is left."
        if self.result.running:
            return "Next: nothing — the gateway is running."
        return f"Next: restart the gateway once: {restart_hint(self.wizard.home)}"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.wizard.action_quit_wizard()
