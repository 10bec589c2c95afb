"""The command line run inside the test's process: `main(argv)` with stdout and stderr captured, as a
`subprocess.CompletedProcess`, so a test reads it as it reads a run of `python -m hermes_wizard`. For runs
where a process of their own adds nothing but ~0.15 s of start-up (the CLI's own process contract, its
exit and its stderr on a crash, is tested through real subprocesses elsewhere)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess

from hermes_wizard.faces.cli import main


def wizard_in_process(*args: str) -> subprocess.CompletedProcess:
    """`main(args)`'s exit code (an argparse exit included) and what it wrote; HERMES_HOME is unset meanwhile,
    as `apply_homes.wizard_cli` unsets it for its subprocess."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.pop("HERMES_HOME", None)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as ended:
                code = ended.code if isinstance(ended.code, int) else 2
    finally:
        if saved is not None:
            os.environ["HERMES_HOME"] = saved
    return subprocess.CompletedProcess(["hermes-wizard", *args], code or 0, out.getvalue(), err.getvalue())
