"""Home: which home and profile, what was found, the verdict; switch profile; continue."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Select, Static

from hermes_wizard.core.homeroot import HomeError, list_profiles, profile_home
from hermes_wizard.core.safetext import visible_lines
from hermes_wizard.faces.outcome import setting_notes
from hermes_wizard.faces.terminal import over_ssh
from hermes_wizard.faces.wording import plural, ssh_note, tilde, verdict_words
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import PlatformsRequested
from hermes_wizard.screens.widgets import WizardFooter, wizard_header

HELP = """# Home

This is the Hermes home the wizard reads and will write: its `.env`, `config.yaml` and the files the
gateway keeps there. The verdict is what {hermes} itself would decide at start-up.

* **Profile** switches to another profile of the same home (`profiles/<name>`).
* **Continue** (Enter) lists every platform Hermes supports.
* Nothing is written until you confirm on the Review screen.
"""


class HomeScreen(WizardScreen):
    AUTO_FOCUS = "#continue"  # the first thing to act on, not the scroll area (focused once, as composed)
    HELP = HELP
    BINDINGS = [Binding("enter", "continue", "Continue"), Binding("escape", "app.quit_wizard", "Quit")]

    def compose(self) -> ComposeResult:
        app = self.wizard
        yield wizard_header()
        with VerticalScroll(id="body"):
            yield Static(visible_lines(tilde(f"Hermes home: {app.home}")), classes="title", id="home-path",
                         markup=False)
            profiles = list_profiles(app.home if app.profile == "default" else app.home.parent.parent)
            if len(profiles) > 1:
                yield Select([(name, name) for name, _ in profiles], value=app.profile, allow_blank=False,
                             id="profile")
            words, ok = verdict_words(app.report)
            yield Static(visible_lines(words), classes="verdict-ok" if ok else "verdict-bad", id="verdict",
                         markup=False)
            notes = setting_notes(app.report, creates=not app.fixing.home_existed)
            if notes:  # next to the verdict: the home to be created, no Hermes installed
                yield Static(visible_lines("\n".join(notes)), id="setting-notes", classes="hint", markup=False)
            yield Static(visible_lines(self._summary()), id="summary", classes="hint", markup=False)
            if over_ssh():  # said here, once: anything printed before the full screen starts is hidden by it
                yield Static(visible_lines(ssh_note(tilde(str(app.home / ".env")))), id="ssh-note", classes="hint",
                             markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Continue", variant="primary", id="continue")
                yield Button("Quit", id="quit")
        yield WizardFooter()

    def _summary(self) -> str:
        report = self.wizard.report
        lines = []
        enabled = [row for row in report.rows if row.enabled]
        lines.append(f"{plural(len(enabled), 'platform')} enabled: " + (", ".join(r.name for r in enabled) or "none"))
        errors = [f for f in report.findings if f.severity == "error"]
        if errors:
            named = "; ".join(f"{f.code} {f.platform or ''}".strip() for f in errors[:6])
            lines.append(f"{len(errors)} problem{'s' if len(errors) != 1 else ''}: {named}")
        loop = [f for f in report.findings if f.code == "HW301"]
        if loop:
            lines.append("Restart loop: " + loop[0].message)
        return "\n".join(lines)

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id != "profile" or event.value == self.wizard.profile:
            return
        root = self.wizard.home if self.wizard.profile == "default" else self.wizard.home.parent.parent
        try:  # reached through its root, never through a link (wizard/core/homeroot.py)
            home = profile_home(root, str(event.value))
        except HomeError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.wizard.switch_home(home, str(event.value))
        self.app.switch_screen(HomeScreen())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "quit":
            self.wizard.action_quit_wizard()
        else:
            self.action_continue()

    def action_continue(self) -> None:
        self.app.post_message(PlatformsRequested())
