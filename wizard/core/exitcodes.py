"""`ExitCode`: every exit status the command line gives (DESIGN.md, "Contracts"), named once.

`check`: 0 the gateway would start and there are no error findings, 1 error findings (it would still start),
78 (EX_CONFIG) Hermes would refuse to start or crash at start; 2 a usage error.  `access PLATFORM SENDER`:
0 accepted, 1 denied.  `setup --answers`/`doctor` with `--detailed-exitcode`: 2 means "would change"
(as Terraform's and Puppet's `--detailed-exitcode`), so a mistyped flag there exits 1.  70 is a bug of ours
reported in one line, 74 an output that could not be written, 130 the user's Ctrl-C.

An `IntEnum`, so a member is the number wherever an exit status goes (`sys.exit`, `return` from a face,
comparisons).  Its own module, not wizard/core/kinds.py, because the pre-start gate imports it and nothing
else of the domain's words (`enum` is already loaded by `re`: this costs the gate one small class).
Scripts that run inside Hermes's own Python (wizard/hermes/ask_hermes.py, pairing_hermes.py) cannot import
this package and keep their own numbers.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # the gateway would start and no error findings; `access`: accepted; nothing left to change
    PROBLEMS = 1  # error findings (it would start), changes pending, a failed write; `access`: denied
    USAGE = 2  # a usage error (argparse's own code)
    CHANGED = 2  # with --detailed-exitcode: a change was made or would be (an alias of USAGE's number)
    INTERNAL = 70  # EX_SOFTWARE: a bug of ours, reported in one line
    IO_ERROR = 74  # EX_IOERR: the output could not be written (stdout closed, a full disk)
    CONFIG = 78  # EX_CONFIG: Hermes would refuse to start (or crash at start)
    INTERRUPTED = 130  # 128 + SIGINT: the user pressed Ctrl-C
