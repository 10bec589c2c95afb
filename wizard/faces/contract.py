"""The command line's error contract, for every command: one clear line, never a traceback.

`guarded(body)` runs a command and turns what escapes it into its exit code: a reader that left
(`check | head`) is 0, Ctrl-C is 130 with a line saying whether anything was written, and a bug of
ours is 70 with one line (HERMES_WIZARD_DEBUG=1 lets the traceback through).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from wizard.core.kinds import ExitCode


def guarded(body: Callable[[], int]) -> int:
    try:
        return body()
    except BrokenPipeError:
        return ExitCode.OK
    except KeyboardInterrupt:
        from wizard.core.atomic import writes_began

        print("hermes-wizard: interrupted; no changes were made unless a write had completed" if writes_began()
              else "Cancelled. No changes were made.", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except Exception as exc:  # a bug of ours: one clear line, no traceback (HERMES_WIZARD_DEBUG=1 shows it)
        if os.environ.get("HERMES_WIZARD_DEBUG"):
            raise
        print(f"hermes-wizard: internal error ({type(exc).__name__}: {exc}); nothing was written unless a "
              "message above says so. Please report it (rerun with HERMES_WIZARD_DEBUG=1 for details).",
              file=sys.stderr)
        return ExitCode.INTERNAL
