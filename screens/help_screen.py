"""Help for the current screen (F1 or ?), dismissed with Esc."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Markdown

from hermes_wizard.core.safetext import as_spoken


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss", "Close"), Binding("f1", "dismiss", "Close", show=False)]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            # Inside Hermes (`hermes wizard`) the commands it names are the ones that work there.
            yield Markdown(as_spoken(self.text) + "\n\n*Esc closes this help. Ctrl+P opens the command palette.*")
