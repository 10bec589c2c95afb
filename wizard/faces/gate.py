"""`check --gate`, the pre-start gate a service's `ExecCondition=` runs before every start.

One line on stderr, exit 78 exactly when `check` says the gateway would not start (its exit 78, for the
same home and Hermes version): Hermes would refuse to start (its open-policy rule), or it would crash at
start-up (HW021: its config loader or runner raises, or a file it reads first hangs it).  A Hermes no model
judges exactly (a newer version, a fork: `Judgement.asked`) is asked, as `check` asks it: its own startup
decision on a copy of the home, confined, within GATE_ASK_SECONDS (well under the drop-in's timeout);
the asking (wizard/hermes/verify.py) is imported lazily, only then.  A crash is gated
like a refusal because under the shipped unit (`Restart=always`) it loops the same way, every few
seconds, forever, taking the healthy platforms down with it; `ExecCondition=` exiting 78 stops the loop
and leaves the reason in the journal.  Otherwise 0 — and never an obstacle of our own making: a Hermes
this tool neither models nor can ask (HW162: one journal line), a file more than it judges (HW024: one
journal line), an open policy under a version without the refusal (0.17: only its crashes are gated), or any
failure of the wizard itself lets the gateway start.

It runs before every start, so it imports as little as it can: its few flags are read without
argparse (wizard/faces/fastargs.py); anything else goes through the full command line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.homeroot import home_owner
from hermes_wizard.core.safetext import to_stderr, visible
from hermes_wizard.core.smallfile import reading_for
from hermes_wizard.faces.fastargs import GATE_FLAGS, check_args
from hermes_wizard.faces.judging import host_facts
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.hermes.models import model_for, refuses_at_start
from hermes_wizard.read.snapshot import take_snapshot

if TYPE_CHECKING:
    from hermes_wizard.faces.fastargs import CommandArgs
    from hermes_wizard.hermes.loader.plugins import HostFacts

GATE_ASK_SECONDS = 20.0  # asking Hermes costs its import (1.2–2 s here); the drop-in's `timeout` is 30 s


def fast_args(argv: list[str]) -> SimpleNamespace | None:
    """The gate's arguments (after `check`), or None when they need the full parser (help, an unknown
    or repeated flag, a --target that is not modelled: argparse then says what is wrong)."""
    args = check_args(argv, GATE_FLAGS)
    return args if args is not None and args.gate else None


def run_gate(args: CommandArgs) -> int:
    """`check --gate`: 78 when Hermes would refuse or crash at start (one line), else 0; never an
    obstacle of our own making — any failure of the wizard itself lets the gateway start (exit 0)."""
    try:
        homes = select_homes(args)
        if homes is None:
            return ExitCode.OK
        profile, home = homes[0]
        facts = host_facts(args, home)
        judged = facts.hermes
        if judged is not None and judged.asked:
            return _gate_by_asking(home, facts)
        model = model_for(judged)  # the version's own resolver and startup rule, as `check` judges it
        # the start's verdict only: what earlier runs left (gateway_state.json, the starts log) does not decide it;
        # root gating a user's home reads it as that user, who runs the gateway (wizard/core/smallfile.py)
        with reading_for(home_owner(home)):
            snapshot = take_snapshot(home, profile, dict(os.environ), model=model, keyring="assume", runtime=False)
            effective = model.resolve(snapshot, facts)
        # A Hermes without the open-policy refusal (0.17) still crashes at start: gated like check's 78.
        found = model.open_policy_violations(effective) if refuses_at_start(judged) else []
    except Exception as exc:  # the gate must never be the reason a gateway does not start
        _journal(f"hermes-wizard gate: could not judge ({type(exc).__name__}); letting the gateway start")
        return ExitCode.OK
    if effective.unjudged is not None:  # a file more than this tool judges: no verdict, so never an obstacle
        _journal(f"hermes-wizard gate: cannot judge: {visible(effective.unjudged)}; letting the gateway start. "
                 f"See: hermes-wizard explain HW024")
        return ExitCode.OK
    if effective.crash is not None:  # the engine's would_start: a crash first, then the refusal
        _journal(f"hermes-wizard gate: Hermes would crash at start ({visible(effective.crash)}); not starting it, "
                 f"as it would crash again on every restart. Fix: hermes-wizard doctor --home {visible(home)}")
        return ExitCode.CONFIG
    if not found:
        return ExitCode.OK
    first = found[0]
    _journal(f"hermes-wizard gate: Hermes would refuse to start ({first.reason}: {' and '.join(first.open_sides())} "
             f"is open, {first.allow_all_env} not set); not starting it. Fix: hermes-wizard doctor --fix --yes "
             f"--home {visible(home)}")
    return ExitCode.CONFIG


def _gate_by_asking(home: Path, facts: HostFacts) -> int:
    """The gate for a Hermes no model judges exactly: its own verdict, asked on a copy of the home; no verdict
    (it could not be asked) lets the gateway start, with one journal line saying so."""
    from hermes_wizard.hermes.verify import ask_installed  # only an asked Hermes pays for this

    assert facts.hermes is not None  # only an asked Hermes is gated by asking
    named = visible(facts.hermes.named)
    told = ask_installed(home, facts.site_packages, dict(os.environ), GATE_ASK_SECONDS)
    if not told.decided:
        _journal(f"hermes-wizard gate: {named} is not modelled and could not be asked ({visible(told.verdict())}); "
                 "letting the gateway start. See: hermes-wizard explain HW162")
        return ExitCode.OK
    if told.starts:
        return ExitCode.OK
    if told.error:
        _journal(f"hermes-wizard gate: asked {named} itself: it would crash at start ({visible(told.error)}); not "
                 f"starting it, as it would crash again on every restart. Fix: hermes-wizard doctor --home "
                 f"{visible(home)}")
    else:
        _journal(f"hermes-wizard gate: asked {named} itself: it would refuse to start "
                 f"({visible(told.refusal_reason or told.refusal_platform or '?')}); not starting it. Fix: "
                 f"hermes-wizard doctor --fix --yes --home {visible(home)}")
    return ExitCode.CONFIG


def _journal(line: str) -> None:
    """The gate's one line, on stderr (the journal, under systemd).  A line that cannot be written (a full
    disk, a closed stderr) is lost, never the verdict: the exit code is what systemd acts on."""
    try:
        if sys.stderr is not None:
            to_stderr(line, flush=True)
    except (OSError, ValueError):
        pass
