"""The command line's error contract, for every command: one clear line, never a traceback.

`guarded(body)` runs a command and turns what escapes it into its exit code: a reader that left
(`check | head`) is 0, Ctrl-C is 130 with a line saying whether anything was written, and a bug of
ours is 70 with one line (HERMES_WIZARD_DEBUG=1 lets the traceback through); a refusal that escaped in
words (a file the home's owner swapped mid-run) is 1 with its sentence.  Output that cannot be
written (stdout closed, a full disk) is 74, with one line on stderr when stderr still works.
`check` loads this module; the file writer (core/atomic.py, ~7 ms with what it imports) is imported lazily, only
to say whether a write had begun when a command was interrupted.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from hermes_wizard.core.exitcodes import ExitCode
from hermes_wizard.core.safetext import OutputError, to_stderr, visible


def guarded(body: Callable[[], int]) -> int:
    try:
        return body()
    except BrokenPipeError:
        return ExitCode.OK
    except OutputError as exc:  # a full disk or a closed stdout: said in one line where it can be
        from hermes_wizard.core.atomic import writes_began

        return report_output_error(f"{exc}" + ("; a write had begun (`hermes-wizard undo --list` shows the backup)"
                                               if writes_began() else "; nothing was written"))
    except KeyboardInterrupt:
        from hermes_wizard.core.atomic import writes_began

        to_stderr("hermes-wizard: interrupted; no changes were made unless a write had completed" if writes_began()
                  else "Cancelled. No changes were made.")
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug of ours: one clear line, no traceback (HERMES_WIZARD_DEBUG=1 shows it)
        if _refusal(exc):
            to_stderr(f"hermes-wizard: {visible(str(exc))}")
            return ExitCode.PROBLEMS
        if os.environ.get("HERMES_WIZARD_DEBUG"):
            raise
        to_stderr(f"hermes-wizard: internal error ({type(exc).__name__}: {exc}); nothing was written unless a "
                  "message above says so. Please report it (rerun with HERMES_WIZARD_DEBUG=1 for details).")
        return ExitCode.INTERNAL


def _refusal(exc: Exception) -> bool:
    """Whether what escaped is a refusal said in words, not a bug: a home's file that changed under a run into
    something never written (the owner swapped config.yaml for a link to root's file while doctor planned), a
    planned file its writer cannot make.  Nothing was written; the sentence says what to do.  The classes are
    imported lazily, only once something escaped: `check` loads this module."""
    from hermes_wizard.core.homefs import ApplyError
    from hermes_wizard.plan.changes import UnwritableFile

    return isinstance(exc, (ApplyError, UnwritableFile))


def report_output_error(reason: str) -> int:
    """One line on stderr (when it still works) for output that could not be written; the exit code."""
    try:
        if sys.stderr is not None:
            to_stderr(f"hermes-wizard: cannot write the output: {reason}", flush=True)
    except (OSError, ValueError):  # stderr fails too: the exit code is all that is left
        pass
    return ExitCode.IO_ERROR
