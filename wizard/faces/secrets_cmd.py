"""`hermes-wizard secrets migrate --to keyring|env`: move platform secrets through the Plan.

It plans (wizard/plan/keyring_steps.py), shows the masked diff, the keyring steps and the verdict the home gets
afterwards — judged with the moved secrets where they will be — and applies with consent through `apply_plan`
(backup, keyring stored and read back before `.env` loses anything, atomic writes, verify; `undo` reverses it,
keyring included).  It refuses, writing nothing, when the move would leave the gateway without its secrets: no
usable keyring here (one line saying why; `.env` stays as it is, mode 0600), or a Hermes found without this
tool's plugin (the source that reads the keyring) — with the command that installs it.

The keyring is per user: run by anyone but the home's owner (root on a user's home, typically), it refuses in
either direction — the secrets would land in (or be taken from) the caller's keyring, which the gateway,
running as the owner, never reads — and says how to run it as the owner.  `--to env` also refuses while
config.yaml maps a variable to an entry that is not this home's own (HW505): it never reads another's entry.

Exit codes: 0 moved or nothing to move; 1 refused (no keyring, plugin missing, a write failed); 2 usage, no
terminal without --yes, or the question answered no.
"""

from __future__ import annotations

import argparse
import os
import pwd
import shlex
from pathlib import Path

from hermes_wizard.core import keyring_store
from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homefs import ApplyError
from hermes_wizard.core.safetext import hide, to_stderr, visible
from hermes_wizard.faces.advice import pip_install_advice
from hermes_wizard.faces.doctor import _confirm, _say, _words
from hermes_wizard.faces.judging import host_facts
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.faces.wording import plural
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.plan.answers import preview
from hermes_wizard.plan.changes import render_diff
from hermes_wizard.plan.keyring_steps import plan_to_env, plan_to_keyring
from hermes_wizard.write.apply import apply_plan


def run_secrets(args: argparse.Namespace) -> int:
    if args.all_profiles:
        to_stderr("hermes-wizard: secrets migrate moves one home's secrets at a time: use --home or --profile")
        return ExitCode.USAGE
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    name, home = homes[0]
    if refusal := _not_the_owner(home, args.to):
        _say(visible(refusal))
        return ExitCode.PROBLEMS
    facts = host_facts(args, home)
    report = evaluate(home, name, facts=facts)
    hide(secret_values(report.snapshot))
    if args.to == "keyring" and (why := keyring_store.usable()):
        _say(visible(f"The secrets stay in .env (keep it mode 0600): {why}."))
        return ExitCode.PROBLEMS
    foreign = [f for f in report.findings if f.code == "HW505"] if args.to == "env" else []
    if foreign:
        for finding in foreign:
            _say(visible(f"Refused (HW505): {finding.message}"))
        _say(visible(f"Fix: {foreign[0].fix}. Nothing was changed."))
        return ExitCode.PROBLEMS
    try:
        plan = plan_to_keyring(report) if args.to == "keyring" else plan_to_env(report)
    except keyring_store.KeyringUnavailable as exc:
        _say(visible(f"The OS keyring cannot be read here: {exc}. Nothing was changed."))
        return ExitCode.PROBLEMS
    if not plan:
        _say("Nothing to move: " + ("no platform secret is set in .env." if args.to == "keyring"
                                    else "no secret is kept in the OS keyring for this home."))
        return ExitCode.OK
    after = preview(report, plan)
    _say(render_diff(plan).rstrip("\n"))
    for step in plan.keyring:
        _say(visible(f"  keyring: {step.describe()}"))
    _say(f"After the move: {_words(after)}")
    blocked = [f for f in after.findings if f.code == "HW502"] if args.to == "keyring" else []
    if blocked:
        _say(visible(f"Refused: {blocked[0].message}"))
        _say(visible(f"Install it first: {_install_hint(facts)}, then `hermes plugins enable wizard`."))
        return ExitCode.PROBLEMS
    if args.dry_run:
        _say("Nothing was changed (--dry-run).")
        return ExitCode.OK
    moved = plural(sum(1 for c in plan.changes if c.file == ".env"), "secret")
    if not args.yes and not _confirm(f"Move {moved} {'to the OS keyring' if args.to == 'keyring' else 'to .env'}?",
                                     verb="move them"):
        _say("Nothing was changed.")
        return ExitCode.USAGE
    try:
        result = apply_plan(plan, facts=facts, reason=f"secrets migrate --to {args.to}")
    except ApplyError as exc:
        to_stderr(f"hermes-wizard: {visible(str(exc))}")
        return ExitCode.PROBLEMS
    _say(f"Backup: {visible(result.backup)}/  (`hermes-wizard undo` moves them back)")
    for line in result.service_failures:
        _say(visible(line))
    _say(f"Now: {_words(result.report)}")
    return ExitCode.OK if result.report.would_start else ExitCode.CONFIG


def _not_the_owner(home: Path, direction: str) -> str | None:
    """Why this user must not move `home`'s secrets (None: the home is theirs, or it cannot be looked at)."""
    try:
        owners = {os.stat(home, follow_symlinks=False).st_uid, os.stat(home).st_uid}
    except OSError:
        return None  # no such home: the usual reading says so
    me = os.geteuid()
    if owners == {me}:
        return None
    owner = next(iter(owners - {me}))
    try:
        login = pwd.getpwuid(owner).pw_name
    except KeyError:
        login = f"#{owner}"
    command = shlex.join(["sudo", "-u", login, "hermes-wizard", "secrets", "migrate", "--to", direction,
                          "--home", str(home)])
    where = "into your own OS keyring" if direction == "keyring" else "out of your own OS keyring"
    return (f"Refused: {home} belongs to {login}, not to you. The OS keyring is per user: this would move its "
            f"secrets {where}, which the gateway (running as {login}) never reads. Nothing was changed. "
            f"Run it as the owner: {command}")


def _install_hint(facts: HostFacts) -> str:
    return pip_install_advice(getattr(facts, "site_packages", None))
