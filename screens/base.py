"""The base of the wizard's screens: `self.wizard` is the App that owns the session, typed.

Textual types `Screen.app` as a plain `App`; the wizard's screens read the App's state
(`session`, `report`, `plan()`, ...), so they reach it through this typed name.  The App is
imported for the type checker only: screens never import each other or the App at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from screens.app import WizardApp


class WizardScreen(Screen):
    @property
    def wizard(self) -> WizardApp:
        return cast("WizardApp", self.app)
