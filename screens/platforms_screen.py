"""Platforms: every platform Hermes supports, enabled ones first, as Hermes would see
them once the pending answers are applied.  Enter opens one; Ctrl+R reviews the plan (letters find).

Rows show the display name and the id, enabled platforms first, each group by name.  Typing letters jumps
to the first platform whose name, id or common alias (WeChat, Lark, tg, …: Hermes's own aliases) starts
with them, else contains them, and the line under the table shows what was typed (a pause of FIND_RESET
seconds starts a new word).  The cursor stays on its platform when the rows are rebuilt (coming back from a
platform, or its row moving up once enabled).  The columns fit in 80.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import DataTable, Static

from hermes_wizard.core.safetext import visible, visible_lines
from hermes_wizard.faces.wording import credential_state, plural
from hermes_wizard.hermes.loader.catalog import ALIASES
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import PlatformChosen, ReviewRequested
from hermes_wizard.screens.widgets import WizardFooter, verdict_line, wizard_header

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.catalog import Spec

HELP = """# Platforms

Every messaging platform {hermes} supports. Rows show what the gateway would see **after** the changes you
have chosen so far (nothing is written yet):

* **Verdict**: `refuses-start` means this platform alone stops the whole gateway; `open` means anyone who
  can reach it uses the agent; `disabled` means it is off.
* **Credentials**: present, missing, incomplete, or the state on disk (e.g. `not-paired`: WhatsApp has no
  `creds.json`).
* **DM / Groups**: the policy the adapter applies (only weixin, whatsapp, wecom, qqbot and yuanbao have one).

Enter opens a platform. Type part of a platform's name (or WeChat, Lark…) to jump to it. **Ctrl+R** shows
the plan and the verdict it leads to. Esc goes back.
"""


# The Platform column's width: "Weixin (WeChat)  weixin" fits on one line, longer pairs wrap the id under
# the name, so Verdict (the column that matters) is never pushed off an 80-column screen.
NAME_WIDTH = 24
FIND_RESET = 1.0  # seconds without typing before type-to-find starts a new word


def name_cell(name: str, specs: Mapping[str, Spec], id_style: str = "dim") -> tuple[Text, int]:
    """The Platform cell — display name (from the judged version's `specs`), then the id in `id_style` — and
    how many lines it needs."""
    label = specs[name].label
    one_line = len(label) + 2 + len(name) <= NAME_WIDTH
    return Text.assemble(label, "  " if one_line else "\n  ", (name, id_style)), 1 if one_line else 2


def find_platform(typed: str, order: list[str], specs: Mapping[str, Spec]) -> str | None:
    """The first platform in `order` whose name, id or alias starts with `typed`, else contains it."""
    def words(name: str) -> list[str]:
        return [specs[name].label.lower(), name, *(alias for alias, to in ALIASES.items() if to == name)]

    for found in (lambda w: w.startswith(typed), lambda w: typed in w):
        match = next((name for name in order if any(found(word) for word in words(name))), None)
        if match is not None:
            return match
    return None


class PlatformsScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("ctrl+r", "review", "Review"),
                Binding("enter", "open", "Open", show=False)]

    def compose(self) -> ComposeResult:
        yield wizard_header()
        yield verdict_line(*self.wizard.verdict_now())
        yield Static("Choose a platform (Enter; type its name to jump to it), or Ctrl+R to review the plan.",
                     classes="hint", id="intro")
        yield DataTable(cursor_type="row", zebra_stripes=True, id="platforms")
        yield Static("", id="find", classes="hint")
        yield Static("", id="pending", classes="hint")
        yield WizardFooter()

    def on_mount(self) -> None:
        self.typed, self.typed_at = "", 0.0
        table = self.query_one(DataTable)
        table.add_column("Platform", width=NAME_WIDTH, key="platform")
        for title in ("Verdict", "Credentials", "DM", "Groups"):
            table.add_column(title, key=title.lower())
        self.refresh_rows()
        table.focus()

    def on_screen_resume(self) -> None:
        self.refresh_rows()

    def _cursor_name(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    def refresh_rows(self) -> None:
        report = self.wizard.previewed()
        rows = {row.name: row for row in report.rows}
        table = self.query_one(DataTable)
        kept = self._cursor_name()
        table.clear()
        specs = report.model.platforms()  # the judged version's platforms
        order = sorted(specs, key=lambda n: (not (n in rows and rows[n].enabled), specs[n].label.lower()))
        for name in order:
            row = rows.get(name)
            enabled = bool(row and row.enabled)
            # dimmed, the id fell to 5.8:1 without colour (3.1:1 under the cursor): italic sets it apart there
            cell, height = name_cell(name, specs, "italic" if self.app.no_color else "dim")
            # Text cells, not markup: a value from a file can hold `[` or escapes.
            table.add_row(cell, row.verdict if row else "disabled",
                          Text(visible(credential_state(report, name, short=True))) if enabled else "–",
                          Text(visible(row.dm_policy)) if row and row.dm_policy else "–",
                          Text(visible(row.group_policy)) if row and row.group_policy else "–",
                          key=name, height=height)
        if kept is not None:
            table.move_cursor(row=table.get_row_index(kept), animate=False)
        words, ok = self.wizard.verdict_now()  # the rows' verdicts, and the one sentence they add up to
        self.query_one("#verdict", Static).update(visible_lines(words))
        self.query_one("#verdict").set_classes("verdict-ok" if ok else "verdict-bad")
        count = self.wizard.session.pending()
        self.query_one("#pending", Static).update(
            f"{plural(count, 'pending change')} — Ctrl+R to review" if count else "No changes yet.")

    def on_key(self, event: events.Key) -> None:
        """Type-to-find: every letter is part of a word here (relay and raft begin with r), which is why
        Review is Ctrl+R on this screen."""
        char = (event.character or "").lower()
        if len(char) != 1 or not (char.isalnum() or char in "_ "):
            return
        now = time.monotonic()
        if now - self.typed_at > FIND_RESET:
            self.typed = ""
        self.typed, self.typed_at = self.typed + char, now
        event.stop()
        event.prevent_default()
        match = find_platform(self.typed, self._order(), self.wizard.previewed().model.platforms())
        self.query_one("#find", Static).update(
            f"Find: {self.typed}" + ("" if match else " (no platform matches)"))
        if match is not None:
            table = self.query_one(DataTable)
            table.move_cursor(row=table.get_row_index(match))

    def _order(self) -> list[str]:
        table = self.query_one(DataTable)
        return [str(row_key.value) for row_key in table.rows]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self._open(str(event.row_key.value))

    def action_open(self) -> None:
        name = self._cursor_name()
        if name is not None:
            self._open(name)

    def _open(self, name: str) -> None:
        self.app.post_message(PlatformChosen(name))

    def action_review(self) -> None:
        self.app.post_message(ReviewRequested())
