"""`hermes-wizard check`: one report per home, text or JSON, and its exit code (ARCHITECTURE.md, "Contracts").

`check` reads files only — service unit files included (`--unit PATH` names one); it asks systemd
(systemctl show, journalctl) only with `--service`.  `check --gate` is wizard/faces/gate.py (the command
line sends it there: the gate never loads this module's engine).

Exit codes: 0 the gateway would start and no error findings; 1 error findings but it would start;
78 Hermes would refuse to start (or crash loading its config); 2 usage error; 74 the report could not
be written (wizard/faces/contract.py).  `--all-profiles` exits with the worst.  The console script
reaches `run_check` without loading the argparse command line (wizard/faces/entry.py), so this module
imports only what a check needs; two imports wait, lazily, for the runs that need them: the systemd runner
(subprocess, ~15 ms) for `--unit`/`--service`, and the text renderer (judge/report.py) for text output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import _HIDDEN, guarded_output, hide, json_text, scrubber
from hermes_wizard.faces.contract import guarded
from hermes_wizard.faces.judging import host_facts, plugin_tip
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.judge.engine import evaluate
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.service.scope import ServiceScope

if TYPE_CHECKING:
    from hermes_wizard.faces.fastargs import CommandArgs
    from hermes_wizard.judge.engine import HomeReport


def run_check(args: CommandArgs) -> int:
    """`check` with the command line's error contract, its output through the escaping guard."""
    def body() -> int:
        with guarded_output():  # nothing from a home reaches the terminal raw (wizard/core/safetext.py)
            return _check(args)

    return guarded(body)


def _check(args: CommandArgs) -> int:
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    runner = None
    if args.service:
        from hermes_wizard.service.systemd import Runner  # subprocess: only when systemd may be asked

        runner = Runner()
    return _report(args, homes, ServiceScope.of(args.unit, runner))


# The last check's reports, kept: a check ends with os._exit (wizard/faces/entry.py), and freeing a big home's
# snapshot object by object costs a tenth of its check (0.17 s with 100k platform keys, benchmarks/bench_inputs.py).
# One slot, so an in-process caller keeps at most one check's reports.
_LAST_REPORTS: list[HomeReport] = []


def _report(args: CommandArgs, homes: list[tuple[str, Path]], scope: ServiceScope) -> int:
    base_env = dict(os.environ) if args.inherit_env else {}
    facts = host_facts(args, homes[0][1])
    reports = [evaluate(path, name, base_env=base_env, facts=facts, verify=args.verify, service=scope)
               for name, path in homes]
    _LAST_REPORTS[:] = reports
    for report in reports:
        hide(secret_values(report.snapshot))
    if args.format == "json":
        payload = [r.as_json() for r in reports] if args.all_profiles else reports[0].as_json()
        sys.stdout.write(json_text(_scrubbed(payload)) + "\n")
    else:
        from hermes_wizard.judge.report import render_text

        sys.stdout.write("\n\n".join(render_text(r) for r in reports) + "\n")
        if tip := plugin_tip(facts, reports):
            sys.stdout.write(tip + "\n")
    codes = [r.exit_code() for r in reports]
    return ExitCode.CONFIG if ExitCode.CONFIG in codes else max(codes)


def _scrubbed(payload: object) -> object:
    """The JSON payload with registered secrets masked in every string (before encoding,
    so a secret holding a quote or backslash is found as it is)."""
    return _masked(payload, scrubber(_HIDDEN))


def _masked(payload: object, mask: Callable[[str], str]) -> object:
    if isinstance(payload, str):
        return mask(payload)
    if isinstance(payload, list):
        return [_masked(item, mask) for item in payload]
    if isinstance(payload, dict):
        return {key: _masked(value, mask) for key, value in payload.items()}
    return payload
