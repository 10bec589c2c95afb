"""Review: the plan as a per-file diff with secrets masked, and the verdict Hermes
will reach after it.  Apply (Ctrl+S) is the only way to write."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Button, Footer, Header, Static, TextArea

from screens.base import WizardScreen
from screens.messages import ChangesApplied
from wizard.core.safetext import visible_lines
from wizard.plan.changes import render_diff

HELP = """# Review

The exact lines that will change, file by file (secrets are shown as ••••••), and what Hermes will decide
with them. Nothing has been written yet.

**Apply** (Ctrl+S) backs up every file it touches into `<home>/.wizard-backups/`, writes atomically, reads
the files back and judges them again. Esc goes back to change your answers.
"""


def verdict_after(report) -> tuple[str, bool]:
    from wizard.judge.report import verdict_clause

    return f"After these changes, {verdict_clause(report)}.", report.would_start


class ReviewScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+s", "apply", "Apply")]

    def compose(self) -> ComposeResult:
        plan = self.wizard.plan()
        yield Header()
        yield Static(f"{len(plan.changes)} change(s) in {', '.join(plan.files()) or 'no file'}", classes="title")
        diff = render_diff(plan) if plan else "Nothing to change."
        yield TextArea(diff, read_only=True, id="diff", show_line_numbers=False)
        words, ok = verdict_after(self.wizard.previewed())
        yield Static(visible_lines(words), id="after", classes="verdict-ok" if ok else "verdict-bad", markup=False)
        yield Static("", id="message", classes="error-text", markup=False)
        with Horizontal(classes="buttons"):
            yield Button("Apply", variant="success", id="apply", disabled=not plan)
            yield Button("Back", id="back")
        yield Footer()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_apply() if event.button.id == "apply" else self.app.pop_screen()

    def action_apply(self) -> None:
        from wizard.write.apply import ApplyError

        if not self.wizard.plan():
            return
        try:
            result = self.wizard.apply_pending()
        except ApplyError as exc:
            self.query_one("#message", Static).update(visible_lines(str(exc)))
            return
        self.app.post_message(ChangesApplied(result))
