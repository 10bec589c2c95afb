"""What a screen tells the App when the user moves on; the App decides which screen comes next.

Screens never import each other (ARCHITECTURE.md, "Layers"): a screen posts one of these to `self.app`, and
`WizardApp` — the only module that imports screen classes — pushes or pops screens in its
handlers.  Each name says what happened, in the past tense; none of them writes anything.
This module imports no screen, so importing it never closes a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from hermes_wizard.cases.fixing import Applied
    from hermes_wizard.faces.pair_now import Login


@dataclass
class PlatformsRequested(Message):
    """Home or Findings: show the list of platforms."""


@dataclass
class PlatformChosen(Message):
    """Platforms: the user opened one platform."""

    platform: str


@dataclass
class CredentialsKept(Message):
    """Platform: its credentials were recorded as an answer; next is who may use it."""

    platform: str


@dataclass
class AccessKept(Message):
    """Access: the choice was recorded as an answer; go back to the platform list."""

    platform: str


@dataclass
class ReviewRequested(Message):
    """Platforms or Findings: show the plan before anything is written."""


@dataclass
class ChangesApplied(Message):
    """Review: the plan was written; `applied` is the use case's outcome to show (cases/fixing.py `Applied`)."""

    applied: Applied


@dataclass
class FindingsRequested(Message):
    """The command palette (doctor): back to the findings and their fixes."""


@dataclass
class PairingRequested(Message):
    """Platform: run Hermes's own login (`login`) in this terminal, then read the home again."""

    login: Login


@dataclass
class HomeReread(Message):
    """App → the screen on top: the home was read again (after a pairing); `said` is what came of it."""

    said: str
