"""The plain face: `setup` and `doctor` as questionary prompts, for terminals the TUI cannot use (dumb, small,
`--plain`, a screen reader) — the same steps, words and Plan as the TUI, from the same Session.

`run_plain(command, home, profile)` returns the exit code: 0 applied and the gateway will start (or the
user quit: "No changes were made."); 78 applied but Hermes would still refuse to start; 1 the apply
failed (it said why) or the user would not type secrets on a terminal that shows them; 130 Ctrl-C (or a
closed stdin) before apply: "Cancelled. No changes were made."

Contract: questionary and prompt_toolkit are imported only inside this package, lazily (wizard/ stays
importable without them).
"""

from __future__ import annotations

import sys
from pathlib import Path

CANCELLED = "Cancelled. No changes were made."


def run_plain(command: str, home: Path, profile: str = "default", *, ssh: bool | None = None,
              echo_hidden: bool | None = None, width: int | None = None) -> int:
    """Ask, review, apply.  `ssh`, `echo_hidden`, `width`: the terminal's facts (detected when None)."""
    from wizard.faces import terminal
    from wizard.faces.plain import flows
    from wizard.faces.plain.ask import Asker
    from wizard.judge.engine import evaluate
    from wizard.judge.masking import secret_values
    from wizard.plan.session import Session

    asker = Asker(width)
    try:
        session = Session(evaluate(home, profile), command)
        asker.secrets |= secret_values(session.report.snapshot)
        ready = flows.introduce(asker, session, home,
                                ssh=terminal.over_ssh() if ssh is None else ssh,
                                echo_hidden=terminal.echo_can_be_hidden() if echo_hidden is None else echo_hidden)
        if not ready:
            print(CANCELLED, file=sys.stderr)
            return 1
        flow = flows.doctor if command == "doctor" else flows.setup
        steps = flow(asker, session, home, profile)
    except (KeyboardInterrupt, EOFError):  # only questions were asked: nothing was written
        print(f"\n{CANCELLED}", file=sys.stderr)
        return 130
    if steps is None:
        asker.say("No changes were made.")
        return 0
    outcome = flows.apply(asker, session, steps)  # asks nothing; a Ctrl+C here is the CLI's to word
    if outcome.failed:
        return 1
    return 0 if outcome.result.report.would_start else 78
