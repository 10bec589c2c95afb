"""Acting on a Plan's keyring steps (wizard/plan/keyring_steps.py), around apply's file writes.

Order: STORE steps run after the backup set is opened and before any file changes — each secret is stored, then
read back — so `.env` loses a secret only once the keyring holds it; if a store or a later file write fails, what
was stored is put back as it was (the previous value in memory, or the entry removed).  DELETE steps run last,
after the files are written and verified; a delete that fails only leaves an unused entry, and says so.

The backup set journals each step as {action, variable} (a STORE also: whether its entry existed) — never a
value, never a service or username: those are derived again from the home (`entry_for`) when the journal is read,
so a hostile manifest in a home cannot make this tool touch any other keyring entry.  Undo of a DELETE stores
each secret again from the current `.env`, which still holds it, before the files go back; undo of a STORE
removes the entries it created after the files are back (the restored `.env` holds the secrets again) — so a
secret is never in neither place.  And the keyring is per user: only the home's owner acts on a journal
(`not_the_owners`) — run by root on a user's home, a journal (forged or not) would store that user's secrets in
root's keyring, or delete root's own entries for that home.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypedDict

from hermes_wizard.core import keyring_store
from hermes_wizard.core.homefs import ApplyError
from hermes_wizard.core.homeroot import foreign_owner
from hermes_wizard.plan.actions import KeyringAction
from hermes_wizard.plan.keyring_steps import KeyringStep

_VARIABLE = re.compile(r"[A-Z][A-Z0-9_]{0,127}")


class _JournalledStep(TypedDict):
    action: str
    variable: str


class KeyringEntry(_JournalledStep, total=False):
    """One keyring step as the backup set journals it: an action and a variable's name, never a value;
    a STORE notes whether its entry `existed` already."""

    existed: bool


def journal_entries(steps: Iterable[KeyringStep]) -> list[KeyringEntry]:
    """The backup set's record of `steps`; a STORE notes whether its entry existed already (undo then leaves
    it: its earlier value is not known, and the restored `.env`, which wins, holds the secret)."""
    entries: list[KeyringEntry] = []
    for step in steps:
        entry: KeyringEntry = {"action": step.action.value, "variable": step.variable}
        if step.action == KeyringAction.STORE:
            try:
                entry["existed"] = keyring_store.read(step.service, step.username) is not None
            except keyring_store.KeyringUnavailable:
                entry["existed"] = False  # the store itself will fail and say why
        entries.append(entry)
    return entries


def store_all(steps: Iterable[KeyringStep]) -> list[tuple[str, str, str | None]]:
    """Run the STORE steps; [(service, username, previous value)] for `take_back`.  ApplyError (with every
    entry put back as it was) when the keyring refuses or does not read back what was stored."""
    stored: list[tuple[str, str, str | None]] = []
    try:
        for step in steps:
            if step.action != KeyringAction.STORE:
                continue
            assert step.secret is not None  # a STORE carries the value it writes
            previous = keyring_store.read(step.service, step.username)
            keyring_store.store(step.service, step.username, step.secret)
            stored.append((step.service, step.username, previous))
            if keyring_store.read(step.service, step.username) != step.secret:
                raise keyring_store.KeyringUnavailable(f"{step.variable} did not read back from the keyring as stored")
    except keyring_store.KeyringUnavailable as exc:
        take_back(stored)
        raise ApplyError(f"the OS keyring: {exc}; nothing was written") from None
    return stored


def take_back(stored: list[tuple[str, str, str | None]]) -> None:
    """Put the entries `store_all` changed back as they were (best effort: the apply is failing already)."""
    for service, username, previous in reversed(stored):
        try:
            if previous is None:
                keyring_store.delete(service, username)
            else:
                keyring_store.store(service, username, previous)
        except keyring_store.KeyringUnavailable:
            pass


def delete_all(steps: Iterable[KeyringStep]) -> list[str]:
    """Run the DELETE steps (after the files verified); one line per entry that could not be deleted."""
    lines = []
    for step in steps:
        if step.action != KeyringAction.DELETE:
            continue
        try:
            keyring_store.delete(step.service, step.username)
        except keyring_store.KeyringUnavailable as exc:
            lines.append(f"{step.variable} is in .env now, but its keyring entry could not be deleted ({exc}); it "
                         "is unused")
    return lines


def _steps(journal: object) -> list[KeyringEntry]:
    """The journal's entries this tool would act on: {action, variable} with a variable's name (a journal is
    the home owner's to write: anything else in it is ignored)."""
    steps: list[KeyringEntry] = []
    for entry in journal if isinstance(journal, list) else []:
        if (isinstance(entry, dict) and entry.get("action") in (KeyringAction.STORE.value, KeyringAction.DELETE.value)
                and isinstance(entry.get("variable"), str) and _VARIABLE.fullmatch(entry["variable"])):
            step: KeyringEntry = {"action": entry["action"], "variable": entry["variable"]}
            if isinstance(entry.get("existed"), bool):
                step["existed"] = entry["existed"]
            steps.append(step)
    return steps


def not_the_owners(home: Path, journal: object) -> str | None:
    """Why this user must not act on `journal`'s keyring entries for `home` (None: the home is theirs, or the
    journal names none), with the command its owner runs instead."""
    owner = foreign_owner(home) if _steps(journal) else None
    if owner is None:
        return None
    command = shlex.join(["sudo", "-u", owner, "hermes-wizard", "undo", "--home", str(home)])
    return (f"this backup moved secrets through the OS keyring, which is per user: undone by you, {owner}'s "
            f"secrets would go into your own keyring (or your own entries for this home would be deleted), and "
            f"{owner}'s gateway never reads yours. Run it as the owner: {command}")


def undo_journal(home: Path, journal: object, env_now: Mapping[str, str], phase: str) -> list[str]:
    """Make the keyring what it was before the set's apply: phase "before" (the files not yet restored) stores
    again what the set deleted; phase "after" deletes what it stored.  Lines saying what was done.  Never on a
    home of someone else's (`not_the_owners`): one line says so and the keyring is left as it is."""
    if why := not_the_owners(home, journal):
        return [f"The OS keyring was left as it is: {why}"]
    lines = []
    for entry in _steps(journal):
        variable = entry["variable"]
        service, username = keyring_store.entry_for(home, variable)
        action = entry.get("action")
        try:
            if action == KeyringAction.STORE.value and phase == "after" and entry.get("existed") is not True:
                if keyring_store.delete(service, username):
                    lines.append(f"{variable}: its keyring entry was removed (.env holds it again)")
            elif action == KeyringAction.DELETE.value and phase == "before" and env_now.get(variable):
                keyring_store.store(service, username, env_now[variable])
                lines.append(f"{variable}: stored in the keyring again")
        except keyring_store.KeyringUnavailable as exc:
            lines.append(f"{variable}: the keyring could not be changed ({exc})")
    return lines
