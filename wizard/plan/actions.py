"""What a Plan does, word by word: to a file's keys (ChangeAction), to an OS keyring entry (KeyringAction) and
to the service that runs the home (ServiceAction).  Words like those of wizard/core/kinds.py — `str` enums that
print and serialise as the word — kept in the planning layer because only planning, writing and the faces use
them: `check` never creates them.
"""

from __future__ import annotations

from hermes_wizard.core.kinds import Word


class ChangeAction(Word):
    """How a Change edits its file (wizard/plan/changes.py)."""

    SET = "set"  # the key gets `after`
    DISABLE = "disable"  # an env line is commented out, reversibly (#hermes-wizard-off:)
    RESTORE = "restore"  # such a comment is undone
    MODE = "mode"  # the file's mode becomes `after` (octal)
    REMOVE = "remove"  # every line of an env key goes, disabled copies too; a gateway.json or config.yaml key goes
    APPEND = "append"  # config.yaml: `after` joins the list at `key` (created if missing; kept once)
    REENCODE = "reencode"  # the file is written as UTF-8 (`before` names its encoding)


class KeyringAction(Word):
    """What a Plan does to one OS keyring entry (wizard/plan/keyring_steps.py)."""

    STORE = "store"  # before any file changes: the secret is stored, then read back
    DELETE = "delete"  # after the files are written and verified


class ServiceAction(Word):
    """What one service step of a Plan does to a systemd unit (wizard/plan/service_steps.py)."""

    STOP = "stop"  # stop + reset-failed: a loop in progress, before any file changes
    DROPIN = "drop-in"  # write our drop-in (the gate, or the Restart=on-failure fallback)
    RELOAD = "daemon-reload"  # systemd reads the drop-in
    RESTART = "restart"  # restart, then watch it stay up before saying it runs
