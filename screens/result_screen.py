"""Result: where the backup is, the verdict read back from disk, and the next step."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Footer, Header, Static

from screens.base import WizardScreen
from wizard.core.safetext import visible_lines
from wizard.faces.wording import tilde, verdict_words

HELP = """# Applied

The files were written, read back and judged again; the verdict below comes from the files on disk.
`hermes-wizard undo` puts the previous versions back (they are in the backup folder shown).
"""


class ResultScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.quit_wizard", "Quit"), Binding("enter", "app.quit_wizard", "Done")]

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result

    def compose(self) -> ComposeResult:
        report = self.result.report
        words, ok = verdict_words(report)
        yield Header()
        with VerticalScroll(id="body"):
            yield Static(visible_lines(f"Written: {', '.join(self.result.written)}"), classes="title", markup=False)
            yield Static(visible_lines(tilde(f"Backup: {self.result.backup}/")), classes="hint", markup=False)
            yield Static(visible_lines(("Verified: " if ok else "Written, but: ") + words.lstrip("✓✗ ")),
                         classes="verdict-ok" if ok else "verdict-bad", id="verified", markup=False)
            yield Static("Next: restart the gateway once, e.g. `systemctl --user restart hermes-gateway`."
                         if ok else "Next: run `hermes-wizard doctor` again to see what is left.", classes="hint")
            with Horizontal(classes="buttons"):
                yield Button("Done", variant="primary", id="done")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.wizard.action_quit_wizard()
