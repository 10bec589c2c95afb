"""The headless `doctor` and `undo` faces: plan, show, ask (or --yes), apply, verify.

`doctor` prints one line per repair, the plan as a masked diff, and the verdict
Hermes will reach afterwards; `--fix` applies it (asking first on a terminal,
refusing to guess without one unless `--yes`).  "The gateway will start" is only
said after the written files were re-read and judged again.

Exit codes: 0 nothing to do, or repaired and the gateway will start; 1 changes
pending (`--dry-run`, or no `--fix`), a failed write, or problems left; 2 usage;
78 the gateway would still refuse to start.
"""

from __future__ import annotations

import sys

from wizard.cli import EX_CONFIG, EX_USAGE, select_homes


def _say(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def run_doctor(args) -> int:
    from wizard.apply import ApplyError, apply_plan
    from wizard.engine import evaluate
    from wizard.plan import render_diff
    from wizard.plugins import HostFacts
    from wizard.repairs import RepairOptions, plan_repairs

    homes = select_homes(args)
    if homes is None:
        return EX_USAGE
    import os

    base_env = dict(os.environ) if args.inherit_env else {}
    facts = HostFacts.detect(homes[0][1], args.hermes_python, dict(os.environ))
    options = RepairOptions(open_policy=args.open_policy, dead_transport=args.dead_transport)
    codes = []
    for profile, home in homes:
        if len(homes) > 1:
            _say(f"== {home} (profile {profile})")
        report = evaluate(home, profile, base_env=base_env, facts=facts)
        repair = plan_repairs(report, options)
        for line in repair.notes:
            _say(line)
        for line in repair.unfixable:
            _say(f"not fixed: {line}")
        if not repair.plan:
            _say("Nothing to fix." if report.would_start else "")
            codes.append(_verdict(report))
            continue
        _say(render_diff(repair.plan).rstrip("\n"))
        _say(f"After these changes: {_words(repair.after)}")
        if args.dry_run or not args.fix:
            if not args.dry_run:
                _say("Run `hermes-wizard doctor --fix` to apply (it backs up every file first).")
            codes.append(1)
            continue
        if not args.yes and not _confirm():
            _say("No changes were made.")
            codes.append(1 if sys.stdin.isatty() else EX_USAGE)
            continue
        try:
            result = apply_plan(repair.plan, base_env=base_env, reason="doctor --fix", facts=facts)
        except ApplyError as exc:
            print(f"hermes-wizard: {exc}", file=sys.stderr)
            codes.append(1)
            continue
        _say(f"Backup: {result.backup}/")
        after = result.report
        if after.would_start:
            enabled = [row.name for row in after.rows if row.enabled]
            _say(f"Verified: the gateway will start ({', '.join(enabled) or 'no platforms'}).")
            _say("Next: restart the gateway once, e.g. systemctl --user restart hermes-gateway")
        else:
            _say(f"Written, but the gateway will still not start: {_words(after)}")
        codes.append(_verdict(after))
    return EX_CONFIG if EX_CONFIG in codes else (EX_USAGE if EX_USAGE in codes else max(codes or [0]))


def _confirm() -> bool:
    if not sys.stdin.isatty():
        print("hermes-wizard: no terminal to ask for confirmation; add --yes to apply without asking",
              file=sys.stderr)
        return False
    try:
        return input("Apply these changes? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _verdict(report) -> int:
    return 0 if report.would_start and not report.errors() else (EX_CONFIG if not report.would_start else 1)


def _words(report) -> str:
    if report is None:
        return "unknown"
    if report.effective.crash:
        return f"the gateway will not start ({report.effective.crash})"
    if report.violations:
        return f"the gateway will refuse to start ({report.violations[0].reason})"
    return f"the gateway will start ({', '.join(r.name for r in report.rows if r.enabled) or 'no platforms'})"


def run_undo(args) -> int:
    from wizard.apply import ApplyError
    from wizard.undo import undo_latest

    homes = select_homes(args)
    if homes is None:
        return EX_USAGE
    try:
        result = undo_latest(homes[0][1])
    except ApplyError as exc:
        print(f"hermes-wizard: {exc}", file=sys.stderr)
        return 1
    _say(f"Restored {', '.join(result.files)} from {result.restored_from}/")
    _say(f"The replaced versions are in {result.backup}/ (run `hermes-wizard undo` again to go back).")
    _say(f"Now: {_words(result.report)}")
    return 0
