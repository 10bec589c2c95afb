"""`hermes-wizard explain [CODE]`: every check's documentation, by its stable code or its name
(the codes are a contract: ARCHITECTURE.md, "Contracts"), as text or JSON."""

from __future__ import annotations

import argparse
import json
import textwrap

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import to_stderr, visible
from hermes_wizard.judge.checks import Check, all_checks, get_check


def run_explain(args: argparse.Namespace) -> int:
    if not args.code:
        rows = all_checks()
        if args.format == "json":
            print(json.dumps([_check_json(c) for c in rows], indent=2))
        else:
            for c in rows:
                print(f"{c.code}  {c.name:<34} {c.severity:<8} {c.summary}")
        return ExitCode.OK
    found = get_check(args.code)
    if found is None:
        to_stderr(f"hermes-wizard: no check {visible(args.code)!r}; `hermes-wizard explain` lists them")
        return ExitCode.USAGE
    if args.format == "json":
        print(json.dumps(_check_json(found), indent=2))
    else:
        def para(text: str) -> str:
            return textwrap.fill(" ".join(text.split()), 88, initial_indent="  ", subsequent_indent="  ")

        print(f"{found.code} {found.name} ({found.severity})\n\n{found.summary}\n\nWhat\n{para(found.what)}\n\n"
              f"Why\n{para(found.why)}\n\nFix\n{para(found.fix)}")
    return ExitCode.OK


def _check_json(c: Check) -> dict[str, str]:
    return {"code": c.code, "name": c.name, "severity": c.severity, "summary": c.summary, "what": c.what,
            "why": c.why, "fix": c.fix}
