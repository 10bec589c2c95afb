"""Asked before quitting with answers that would be lost: "Discard N changes?" (Discard / Keep editing)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmQuit(ModalScreen[bool]):
    BINDINGS = [Binding("escape", "keep", "Keep editing"), Binding("d", "discard", "Discard")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-quit"):
            yield Static(self.question, id="question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Keep editing", variant="primary", id="keep")
                yield Button("Discard and quit", variant="error", id="discard")

    def on_mount(self) -> None:
        self.query_one("#keep", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "discard")

    def action_keep(self) -> None:
        self.dismiss(False)

    def action_discard(self) -> None:
        self.dismiss(True)
