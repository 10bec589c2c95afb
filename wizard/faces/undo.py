"""The headless `undo` face: list the backup sets, preview the latest one, ask, restore.

`undo --list` prints the complete sets, newest first (name, reason, files, whether the set
journalled a service drop-in).  `undo` and `undo --dry-run` print what the restore would
change — `.env`/`config.yaml` now against the set's copies, as a diff masked like doctor's —
and the verdict the engine gives the home as the restore leaves it; `--dry-run` stops there.
Then it asks "Restore these files? The gateway would then … [y/N]" on a terminal; `--yes`
skips the question; with neither a terminal nor `--yes` it refuses (exit 2) and writes nothing.
The restore is of the set that was shown (another run in between: refused, nothing restored).

A backup set is the home owner's to write: its reason and names are printed through
`visible` (and the guarded stdout), its copies read only by wizard/write/undo.py's checked reads.

A drop-in the set journalled that the restore would leave as it is (its folder refused by
wizard/service/dropdir.py, or the unit no longer runs the home) is named, with why, in the preview.

Exit codes: 0 listed, previewed, or restored; 1 nothing to undo, a refused set, or restored but a
journalled drop-in left as it is because its folder was refused or it could not be put back (the
files are restored; the line says which and why); 2 usage,
no terminal without --yes, or the question answered no.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import hide, to_stderr, visible
from hermes_wizard.faces.doctor import _confirm, _say, _words
from hermes_wizard.faces.selection import select_homes
from hermes_wizard.judge.masking import secret_values
from hermes_wizard.judge.report import verdict_clause
from hermes_wizard.plan.changes import contents_diff
from hermes_wizard.write.apply import ApplyError
from hermes_wizard.write.backups import recover_home
from hermes_wizard.write.undo import SetSummary, UndoPreview, list_sets, preview_latest, undo_latest


def run_undo(args: argparse.Namespace) -> int:
    homes = select_homes(args)
    if homes is None:
        return ExitCode.USAGE
    home = homes[0][1]
    try:
        if args.list:
            return _list(list_sets(home), home)
        preview = preview_latest(home)
    except ApplyError as exc:
        if not args.dry_run:
            _clean_up(home)
        to_stderr(f"hermes-wizard: {visible(str(exc))}")
        return ExitCode.PROBLEMS
    hide(secret_values(preview.report.snapshot))  # masked wherever the restored values would be printed
    question = _show(preview)
    if args.dry_run:
        _say("Nothing was restored (--dry-run).")
        return ExitCode.OK
    if not args.yes and not _confirm(question, verb="restore"):
        _say("Nothing was restored.")
        return ExitCode.USAGE
    try:
        result = undo_latest(home, expect=preview.set_name, hermes_python=getattr(args, "hermes_python", None))
    except ApplyError as exc:
        to_stderr(f"hermes-wizard: {visible(str(exc))}")
        return ExitCode.PROBLEMS
    if result.recovered:
        _say(visible(result.recovered))
        _say(f"Now: {_words(result.report)}")
        return ExitCode.OK
    _say(f"Restored {visible(', '.join(result.files) or 'no file')} from {visible(result.restored_from)}/")
    for line in result.service_lines:
        _say(visible(line))
    _say(f"The replaced versions are in {visible(result.backup)}/ (run `hermes-wizard undo` again to go back).")
    _say(f"Now: {_words(result.report)}")
    return ExitCode.PROBLEMS if result.service_left else ExitCode.OK


def _clean_up(home: Path) -> None:
    """What undo always did before finding nothing: remove a set folder a killed run left without a
    manifest (it never held a change) and stale temp files, under the lock (wizard/write/backups.py)."""
    try:
        recover_home(home)
    except ApplyError:
        pass  # the error already being reported says enough


def _list(sets: list[SetSummary], home: Path) -> int:
    if not sets:
        _say(f"No backups in {visible(home)}: nothing to undo.")
        return ExitCode.OK
    _say("Backup sets, newest first (`hermes-wizard undo` restores the first):")
    for summary in sets:
        files = f"refused: {summary.refused}" if summary.refused else ", ".join(summary.files) or "no file"
        service = "; and a service drop-in" if summary.service else ""
        _say(visible(f"{summary.name}  {summary.reason or '(no reason)'}  [{files}{service}]"))
    return ExitCode.OK


def _show(preview: UndoPreview) -> str:
    """Print what the restore would change; return the question that asks for it."""
    clause = verdict_clause(preview.report, "would then")
    if preview.set_name is None:
        _say(visible(f"An interrupted run ({preview.interrupted}) would be rolled back: its files put back as "
                     "they were before it. That is all this undo would do."))
        return f"Roll it back? {clause[0].upper()}{clause[1:]}."
    _say(visible(f"Latest backup: {preview.set_name} ({preview.reason or 'no reason given'})"))
    diff = contents_diff(preview.current, preview.restored).rstrip("\n")
    _say(diff or "The files are already as in this backup.")
    for line in preview.pairing:
        _say(line)
    if preview.secrets_changed:
        _say(visible(f"It also changes the value of {', '.join(preview.secrets_changed)} (masked above)."))
    for line in preview.service_left:
        _say(visible(line))
    if preview.service and not preview.service_left:
        _say("It also puts the service drop-ins back as they were before that run (and reloads systemd).")
    _say(f"After the restore: {verdict_clause(preview.report)}")
    return f"Restore these files? {clause[0].upper()}{clause[1:]}."
