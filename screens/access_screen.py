"""Access: pairing, allowlist, open and disabled side by side, each in plain words.

Open requires typing the platform's name; it writes the platform's own allow-all
variable, never the global one.  Allowlist takes IDs, checked as you type.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, RadioSet, Static

from hermes_wizard.core.safetext import visible_lines
from hermes_wizard.faces.access_words import who_reaches
from hermes_wizard.faces.choice_words import access_words, group_words
from hermes_wizard.faces.pairing_cmd import changed_users, journalled, preview
from hermes_wizard.faces.sources import own_id_help
from hermes_wizard.faces.wording import current_access
from hermes_wizard.hermes.loader.catalog import Spec
from hermes_wizard.hermes.verify import hermes_python
from hermes_wizard.plan.answers import ACCESS_MODES, GROUP_POLICIES, id_problems, split_ids
from hermes_wizard.plan.session import AnswerError
from hermes_wizard.screens.base import WizardScreen
from hermes_wizard.screens.messages import AccessKept
from hermes_wizard.screens.widgets import Choice, ChoiceSet, WizardFooter, verdict_line, wizard_header
from hermes_wizard.write.undo import pairing_backup_words

HELP = """# Who may use the agent

Everyone who gets through talks to the **same agent as you**: it runs terminal commands, edits files and
executes code on this machine for them.

* **Pairing** (recommended): people you approve with `hermes pairing approve <platform> <CODE>`.
* **Allowlist**: only the listed IDs.
* **Open**: anyone who can reach the bot. You must type the platform's name to confirm.
* **Disabled**: the platform is turned off; its credentials are kept.

What each choice does on this platform, with the Hermes judged here, is written under it: whether a stranger
gets a pairing code, and, on the platforms whose adapter gates group chats itself, who is answered in groups
(with most Hermes versions group pairing answers nobody there: the adapter drops every group message).

Ctrl+S (or Enter in a field) keeps the choice and returns to the platform list. Esc goes back without
keeping it, but nothing is lost: the choice and what you typed are shown again when you come back.
"""


class AccessScreen(WizardScreen):
    HELP = HELP
    BINDINGS = [Binding("escape", "back", "Back"), Binding("ctrl+s", "done", "Keep choice")]

    def __init__(self, platform: str) -> None:
        super().__init__()
        self.platform = platform

    @property
    def spec(self) -> Spec:
        """The platform as the judged Hermes version knows it (its model's catalog)."""
        return self.wizard.report.model.platforms()[self.platform]

    def compose(self) -> ComposeResult:
        # What the plan will leave (the doctor's repair, other answers), not what is on disk: the choice
        # shown first is the one Review would write if the user keeps it.
        report = self.wizard.previewed()
        answer = self.wizard.session.answer(self.platform)
        drafts = answer.drafts  # what was on this screen when the user last left it with Esc
        mode = drafts.get("access") or answer.access or current_access(report, self.platform,
                                                                        before=self.wizard.report)
        words = {m: access_words(self.wizard.report.model, self.platform, m) for m in ACCESS_MODES}
        yield wizard_header()
        yield verdict_line(*self.wizard.verdict_now())
        with VerticalScroll(id="body"):
            yield Static(f"Who may use the agent through {self.spec.label}?", classes="title")
            with ChoiceSet(id="access-choices"):
                for choice in ACCESS_MODES:
                    yield Choice(choice.capitalize() + (" (recommended)" if choice == "pairing" else ""),
                                      value=choice == mode, id=f"mode-{choice}")
            for choice in ACCESS_MODES:
                yield Static(words[choice], classes="access-words", id=f"words-{choice}")
            if self.spec.gate is not None:  # the five platforms whose adapter has its own group policy
                group = drafts.get("group") or answer.group or self._current_group()
                yield Static(f"And in group chats on {self.spec.label}?", classes="title", id="group-title")
                with ChoiceSet(id="group-choices"):
                    for choice in GROUP_POLICIES:
                        default = " (Hermes's default)" if choice == self.spec.group_default else ""
                        yield Choice(choice.capitalize() + default, value=choice == group, id=f"group-{choice}")
                for choice in GROUP_POLICIES:
                    yield Static(self._group_words(choice, mode), classes="access-words", id=f"group-words-{choice}",
                                 markup=False)
                chats = ", ".join(answer.chats if answer.group == "allowlist" else self.wizard.report.model.authorizer()
                                  .group_chats(report.effective.environ, report.effective.platforms, self.platform))
                yield Label(f"Group chat IDs it answers ({self.spec.group_chat_hint or 'comma separated'})",
                            id="group-chats-label")
                yield Input(value=drafts.get("chats", chats), placeholder="e.g. one chat ID, another", id="group-chats")
            listed = ", ".join(answer.ids) if answer.access else report.effective.environ.get(
                self.spec.allowlist_env or "", "")
            yield Label(f"Allowed IDs ({self.spec.id_hint or 'comma separated'})", id="ids-label")
            yield Input(value=drafts.get("ids", listed), placeholder="e.g. 123456789, 987654321", id="ids")
            yield Static(own_id_help(self.platform), id="ids-help", classes="hint", markup=False)
            yield Static("", id="ids-problems", classes="warning-text", markup=False)
            yield Label(f"Type {self.platform} to confirm open access", id="confirm-label")
            yield Input(value=drafts.get("confirm", ""), placeholder=f"type {self.platform} here",
                        id="confirm")  # the bare name looked typed already
            yield Static("", id="message", classes="error-text")
            yield Static(visible_lines(self._who_now()), id="who", classes="hint", markup=False)
            yield Label("Approve a pairing request: the code the person received", id="pair-code-label")
            with Horizontal(classes="buttons"):
                yield Input(placeholder="CODE", id="pair-code")
                yield Button("Approve", id="approve")
                yield Input(placeholder="a paired user's ID", id="revoke-id")
                yield Button("Revoke", id="revoke")
            yield Static("", id="pair-result", classes="hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Keep this choice", variant="primary", id="done")
                yield Button("Back", id="back")
        yield WizardFooter()

    def on_mount(self) -> None:
        self._show_for(self.selected())
        self.query_one(RadioSet).focus()

    def _who_now(self) -> str:
        app = self.wizard
        return who_reaches(app.home, app.profile, self.platform, self.spec.label, facts=app.report.facts)

    def selected(self) -> str:
        pressed = self.query_one("#access-choices", RadioSet).pressed_button
        return (pressed.id or "mode-pairing").removeprefix("mode-") if pressed else "pairing"

    def selected_group(self) -> str | None:
        """The group policy chosen, or None on a platform without one."""
        if self.spec.gate is None:
            return None
        pressed = self.query_one("#group-choices", RadioSet).pressed_button
        return (pressed.id or "").removeprefix("group-") if pressed else self._current_group()

    def _current_group(self) -> str:
        row = next((r for r in self.wizard.previewed().rows if r.name == self.platform), None)
        return (row.group_policy if row is not None and row.group_policy in GROUP_POLICIES
                else self.spec.group_default or "pairing")

    def _group_words(self, policy: str, mode: str) -> str:
        """The group policy's words with the DM choice `mode` (an open group's opt-in may open DMs too)."""
        return group_words(self.wizard.report.model, self.platform, policy, mode)

    def _show_for(self, mode: str) -> None:
        if self.spec.gate is not None:
            for policy in GROUP_POLICIES:
                self.query_one(f"#group-words-{policy}", Static).update(self._group_words(policy, mode))
            for widget_id in ("#group-chats-label", "#group-chats"):
                self.query_one(widget_id).display = self.selected_group() == "allowlist"
        for widget_id in ("#ids-label", "#ids", "#ids-help", "#ids-problems"):
            self.query_one(widget_id).display = mode in ("allowlist", "pairing") and bool(self.spec.allowlist_env)
        for widget_id in ("#confirm-label", "#confirm"):
            self.query_one(widget_id).display = mode == "open" or self.selected_group() == "open"

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self._show_for(self.selected())
        self.query_one("#message", Static).update("")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "ids":
            owner = self.wizard.report.transports.get(self.platform)
            problems = id_problems(self.spec, split_ids(event.value), owner.owner if owner else None)
            self.query_one("#ids-problems", Static).update("\n".join(problems))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id in ("approve", "revoke"):
            self.pairing_action(event.button.id)
        else:
            self.action_done() if event.button.id == "done" else self.action_back()

    def approve_code(self) -> None:
        self.pairing_action("approve")

    def pairing_action(self, action: str) -> None:
        """Approve the typed code (or revoke the typed ID) through Hermes's own pairing code, run as the home's
        owner: first its preview (who, since when, an allowlist Hermes will also change), then, pressed again,
        the change — journalled, so `hermes-wizard undo` takes an approval back through Hermes.  Never a
        write of the store by us."""
        code = self.query_one("#pair-code" if action == "approve" else "#revoke-id", Input).value.strip()
        result = self.query_one("#pair-result", Static)
        app = self.wizard
        python = hermes_python(app.report.facts.site_packages if app.report.facts else None)
        if not code:
            result.update("Type the code the person received from the bot." if action == "approve"
                          else "Type the ID of the paired user to revoke.")
            return
        if python is None:
            result.update(visible_lines(f"Hermes's Python was not found: run hermes pairing {action} "
                                        f"{self.platform} {code}"))
            return
        if getattr(self, "_previewed", None) != (action, code):
            ok, words = preview(app.home, app.profile, python, self.platform, code, action, app.report.facts)
            self._previewed = (action, code) if ok else None
            result.update(words + (f"\nPress {action.capitalize()} again to {action}." if ok else ""))
            return
        self._previewed = None
        answer, backup, problem = journalled(app.home, python, action, self.platform, code)
        app.fixing.wrote_pairing(action, self.platform, changed_users(action, answer) if backup else [])
        said = (answer or {}).get("said", "").strip() or problem
        # Hermes's words quote the stranger's own display name: escaped like anything from a home
        result.update(visible_lines(said + ("\n" + pairing_backup_words(action, backup) if backup else "")))
        self.query_one("#who", Static).update(visible_lines(self._who_now()))

    def action_back(self) -> None:
        """Back without keeping the choice, but without losing it either: shown again on return."""
        self.wizard.session.keep_draft(self.platform, access=self.selected(), ids=self.query_one("#ids", Input).value,
                                       confirm=self.query_one("#confirm", Input).value,
                                       **({"group": group, "chats": self.query_one("#group-chats", Input).value}
                                          if (group := self.selected_group()) else {}))
        self.app.pop_screen()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id in ("pair-code", "revoke-id"):  # Enter previews, then does it
            self.pairing_action("approve" if event.input.id == "pair-code" else "revoke")
        else:
            self.action_done()  # Enter in the IDs or the confirmation keeps the choice

    def action_done(self) -> None:
        mode = self.selected()
        ids = split_ids(self.query_one("#ids", Input).value)
        confirm, group = self.query_one("#confirm", Input).value, self.selected_group()
        session = self.wizard.session
        try:
            chats = split_ids(self.query_one("#group-chats", Input).value) if group == "allowlist" else []
            if group is not None and (group != self._current_group() or session.answer(self.platform).group
                                      or chats):
                session.set_group(self.platform, group, confirm, chats=chats)
            session.set_access(self.platform, mode, ids, confirm)
        except AnswerError as exc:
            self.query_one("#message", Static).update(str(exc))
            focus = "#confirm" if "open" in (mode, group) else "#group-chats" if "group" in str(exc) else "#ids"
            self.query_one(focus, Input).focus()
            return
        self.app.post_message(AccessKept(self.platform))
