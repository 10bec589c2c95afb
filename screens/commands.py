"""The wizard's own commands in the command palette (Ctrl+P): go to any platform, review the changes,
help for the current screen and, in the doctor, back to the findings.

A Textual command Provider: it only posts the same messages the screens post (screens/messages.py), so
the App alone decides which screen comes next.  Textual's own system commands stay in the palette too.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.screen import ModalScreen

from hermes_wizard.faces.wording import platform_title
from hermes_wizard.screens.messages import FindingsRequested, PlatformChosen, ReviewRequested

if TYPE_CHECKING:
    from hermes_wizard.screens.app import WizardApp


class WizardCommands(Provider):
    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        """(prompt, help, callback) for every action that makes sense on the current screen."""
        app = cast("WizardApp", self.app)
        if isinstance(self.screen, ModalScreen):  # a question or help is open: answer it first
            return []
        commands: list[tuple[str, str, Callable[[], object]]] = [
            ("Review changes", "the exact changes and what Hermes will decide with them",
             partial(app.post_message, ReviewRequested())),
            ("Help", "help for this screen", app.action_help),
        ]
        if app.mode == "doctor":
            commands.append(("Findings", "what is wrong and how it will be fixed",
                             partial(app.post_message, FindingsRequested())))
        specs = app.report.model.platforms()  # the judged version's platforms
        commands += [(f"Go to platform: {platform_title(specs[name])}",
                      f"credentials and access for {specs[name].label}",
                      partial(app.post_message, PlatformChosen(name))) for name in sorted(specs)]
        return commands

    async def discover(self) -> Hits:
        for prompt, help_text, callback in self._commands():
            yield DiscoveryHit(prompt, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for prompt, help_text, callback in self._commands():
            score = matcher.match(prompt)
            if score > 0:
                yield Hit(score, matcher.highlight(prompt), callback, text=prompt, help=help_text)
