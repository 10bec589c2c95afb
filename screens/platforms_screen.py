"""Platforms: every platform Hermes supports, enabled ones first, as Hermes would see
them once the pending answers are applied.  Enter opens one; R reviews the plan."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Footer, Header, Static

from screens.base import WizardScreen
from screens.messages import PlatformChosen, ReviewRequested
from wizard.core.safetext import visible
from wizard.faces.wording import plural
from wizard.hermes.v0_19.catalog import PLATFORMS

HELP = """# Platforms

Every messaging platform Hermes 0.19 supports. Rows show what the gateway would see **after** the changes you
have chosen so far (nothing is written yet):

* **Credentials**: present, missing, or the state on disk (e.g. `not-paired`: WhatsApp has no `creds.json`).
* **DM / Groups**: the policy the startup check reads (only weixin, whatsapp, wecom, qqbot and yuanbao have one).
* **Verdict**: `refuses-start` means this platform alone stops the whole gateway.

Enter opens a platform. **R** shows the plan and the verdict it leads to. Esc goes back.
"""


def credential_words(report, name: str) -> str:
    transport = report.transports.get(name)
    if transport is not None and transport.state != "unchecked":
        return transport.state
    spec = PLATFORMS[name]
    missing = [key for key in spec.credentials if not report.effective.environ.get(key, "").strip()]
    if not missing:
        return "present"
    return "missing" if len(missing) == len(spec.credentials) else f"missing {missing[0]}"


class PlatformsScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("r", "review", "Review"),
                Binding("enter", "open", "Open", show=False)]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Choose a platform (Enter), or R to review the plan.", classes="hint", id="intro")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="platforms")
        yield Static("", id="pending", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Platform", "Enabled", "Credentials", "DM", "Groups", "Opt-in", "Verdict")
        self.refresh_rows()
        table.focus()

    def on_screen_resume(self) -> None:
        self.refresh_rows()

    def refresh_rows(self) -> None:
        report = self.wizard.previewed()
        rows = {row.name: row for row in report.rows}
        table = self.query_one(DataTable)
        table.clear()
        order = sorted(PLATFORMS, key=lambda n: (not (n in rows and rows[n].enabled), n))
        for name in order:
            row = rows.get(name)
            enabled = bool(row and row.enabled)
            # Text cells, not markup: a value from a file can hold `[` or escapes.
            table.add_row(name, "yes" if enabled else "no",
                          Text(visible(credential_words(report, name))) if enabled else "–",
                          Text(visible(row.dm_policy)) if row and row.dm_policy else "–",
                          Text(visible(row.group_policy)) if row and row.group_policy else "–",
                          "yes" if row and row.opted_in else "–", row.verdict if row else "disabled", key=name)
        count = self.wizard.session.pending()
        self.query_one("#pending", Static).update(
            f"{plural(count, 'pending change')} — R to review" if count else "No changes yet.")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open(str(event.row_key.value))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            self._open(str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value))

    def _open(self, name: str) -> None:
        self.app.post_message(PlatformChosen(name))

    def action_review(self) -> None:
        self.app.post_message(ReviewRequested())
