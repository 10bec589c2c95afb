"""The plain face: `setup` and `doctor` as questionary prompts, for terminals the TUI cannot use (dumb, small,
`--plain`, a screen reader) — the same steps, words and Plan as the TUI, from the same Session.

`run_plain(command, home, profile)` returns the exit code: once applied, the one every face returns for the
written home (wizard/cases/fixing.py `outcome_code`: 0 clean, 1 an error left or a service step not done, 78
Hermes would still refuse to start); 0 when the user quit ("No changes were made."); 1 the apply failed (it
said why) or the user would not type secrets on a terminal that shows them; 130 Ctrl-C (or a closed stdin)
before apply: "Cancelled. No changes were made."

Contract: questionary and prompt_toolkit are imported only inside this package, lazily (wizard/ stays
importable without them).
"""

from __future__ import annotations

from pathlib import Path

from hermes_wizard.cases.fixing import Fixing
from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import to_stderr, visible
from hermes_wizard.faces import terminal
from hermes_wizard.faces.plain import flows
from hermes_wizard.faces.plain.ask import Asker
from hermes_wizard.faces.plain.platforms import choose_access
from hermes_wizard.faces.wording import disk_words
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.write.saved_answers import SavedAnswersError
from hermes_wizard.write.saved_answers import save_answers as save

CANCELLED = "Cancelled. No changes were made."


def run_plain(command: str, home: Path, profile: str = "default", *, ssh: bool | None = None,
              echo_hidden: bool | None = None, width: int | None = None, save_answers: str | None = None,
              keyring: bool = False) -> int:
    """Ask, review, apply.  `ssh`, `echo_hidden`, `width`: the terminal's facts (detected when None);
    `save_answers`: also record the answers there once confirmed (setup --save-answers, no secret in it);
    `keyring`: typed secrets go to the OS keyring unless none is usable (setup --secrets keyring)."""
    asker = Asker(width)
    try:
        fixing = Fixing(home, profile, command, keyring=keyring)
        asker.secrets |= secret_values(fixing.report.snapshot)
        ready = flows.introduce(asker, fixing, ssh=terminal.over_ssh() if ssh is None else ssh,
                                echo_hidden=terminal.echo_can_be_hidden() if echo_hidden is None else echo_hidden)
        if not ready:
            to_stderr(CANCELLED)
            return ExitCode.PROBLEMS
        flow = flows.doctor if command == "doctor" else flows.setup
        proposal = flow(asker, fixing)
    except (KeyboardInterrupt, EOFError):  # only questions were asked: nothing was written
        to_stderr(f"\n{CANCELLED}")
        return ExitCode.INTERRUPTED
    if proposal is None:
        asker.say("No changes were made.")
        return ExitCode.OK
    if save_answers:  # before apply spends the answers; nothing is applied when it cannot be written
        try:
            asker.say(f"Answers: {visible(str(save(fixing.session, save_answers)))} (no secret in it)")
        except SavedAnswersError as exc:
            asker.say(f"hermes-wizard: {visible(str(exc))}; nothing was written")
            return ExitCode.PROBLEMS
    outcome = flows.apply(asker, fixing, proposal)  # asks nothing; a Ctrl+C here is the CLI's to word
    return ExitCode.PROBLEMS if outcome.applied is None else outcome.applied.exit_code


def run_platform_step(platform: str, home: Path, profile: str = "default", *, width: int | None = None) -> int:
    """One platform's step, as `hermes setup gateway` runs it after Hermes's own (wizard/faces/hermes_plugin.py):
    what is on disk for it, who may use it (each choice in plain words, open only with the name typed, exactly
    the opt-in Hermes needs), then the same review and apply as `setup`.  Exit codes as `run_plain`'s."""
    asker = Asker(width)
    try:
        fixing = Fixing(home, profile, "setup")
        asker.secrets |= secret_values(fixing.report.snapshot)
        asker.say(f"\nhermes-wizard: {platform} as Hermes will see it")
        asker.say(disk_words(fixing.report, platform), indent="  ")
        choose_access(asker, fixing.session, platform)
        proposal = fixing.propose()
        if not flows.review(asker, proposal):
            asker.say("No changes were made by hermes-wizard.")
            return ExitCode.OK
    except (KeyboardInterrupt, EOFError):
        to_stderr(f"\n{CANCELLED}")
        return ExitCode.INTERRUPTED
    outcome = flows.apply(asker, fixing, proposal)
    return ExitCode.PROBLEMS if outcome.applied is None else outcome.applied.exit_code
