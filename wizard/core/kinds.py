"""The domain's words, each with one home: severities, platform verdicts and transport states (what a
Plan does — change, keyring and service actions — is wizard/plan/actions.py; exit codes are
wizard/core/exitcodes.py).

They are `str` enums, so a value compares equal to the word it replaces, prints
as that word and goes into JSON as that word: the CLI and JSON contracts (ARCHITECTURE.md, "Contracts") are
the values here.  `enum` is already imported by `re`, so this costs the check path nothing.
"""

from __future__ import annotations

from enum import Enum


class Word(str, Enum):
    """An enum that behaves as its word wherever text is made (f-strings, str(), JSON)."""

    def __str__(self) -> str:
        return str(self.value)  # a Word's value is its word (a str already); Enum types `value` as Any

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class Severity(Word):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def glyph(self) -> str:
        """flutter doctor's vocabulary: ✗ an error, ! a warning, · a note."""
        return {"error": "✗", "warning": "!", "info": "·"}[self.value]

    @property
    def block_mark(self) -> str:
        """The mark of a block whose worst finding has this severity: [✗], [!], or [✓] (notes only)."""
        return {"error": "✗", "warning": "!", "info": "✓"}[self.value]

    @property
    def rank(self) -> int:
        """0 for the worst: findings are listed worst first."""
        return ("error", "warning", "info").index(self.value)


class Verdict(Word):
    """What one platform comes to (the JSON `verdict` of a platform row)."""

    REFUSES_START = "refuses-start"  # Hermes refuses to start the whole gateway because of it
    CANNOT_CONNECT = "cannot-connect"  # enabled, but its transport is dead (not paired, no token)
    OPEN = "open"  # strangers get in (an opt-in, '*' or an open policy)
    OK = "ok"
    DISABLED = "disabled"


class TransportState(Word):
    """Can an enabled platform connect at all, under any policy (the JSON `transport`)?"""

    OK = "ok"  # credentials on disk look usable
    PAIRED = "paired"
    STORE_PRESENT = "store-present"
    UNCHECKED = "unchecked"  # no on-disk state to check for this platform
    NOT_PAIRED = "not-paired"  # dead: WhatsApp has no creds.json
    EMPTY_CREDS = "empty-creds"  # dead: the pairing was interrupted
    INVALID_CREDS = "invalid-creds"  # dead
    WRONG_SESSION_DIR = "wrong-session-dir"
    UNREGISTERED = "unregistered"
    MISSING_TOKEN = "missing-token"  # dead: Weixin without a token
    MISSING_ACCOUNT = "missing-account"
    NO_STORE = "no-store"


# The doctor's repair options (wizard/plan/repairs.py RepairOptions), offered by `doctor --open-policy` and
# `--dead-transport`: here, so the command line names them without importing the repair machinery.
OPEN_POLICY_CHOICES = ("pairing", "allowlist", "optin")
DEAD_TRANSPORT_CHOICES = ("disable", "keep")
