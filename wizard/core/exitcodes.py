"""`ExitCode`: every exit status the command line gives (ARCHITECTURE.md, "Contracts"), named once.

`check`: 0 the gateway would start and there are no error findings, 1 error findings (it would still start),
78 (EX_CONFIG) Hermes would refuse to start or crash at start; 2 a usage error.  `access PLATFORM SENDER`:
0 accepted, 1 denied.  70 is a bug of ours reported in one line, 74 an output that could not be written, 130
the user's Ctrl-C.  `setup` with `--detailed-exitcode` (as Terraform's and Puppet's) says "changed" with 2, the
number `USAGE` has elsewhere: that is `DetailedExitCode.CHANGED`, its own enum, because an `IntEnum` member of
an existing value is only an alias (its name would print as USAGE); a mistyped flag there exits 1.

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
    INTERNAL = 70  # EX_SOFTWARE: a bug of ours, reported in one line
    IO_ERROR = 74  # EX_IOERR: the output could not be written (stdout closed, a full disk)
    CONFIG = 78  # EX_CONFIG: Hermes would refuse to start (or crash at start)
    INTERRUPTED = 130  # 128 + SIGINT: the user pressed Ctrl-C


class DetailedExitCode(IntEnum):
    """What `setup --detailed-exitcode` adds to `ExitCode`: its other statuses are `ExitCode`'s own."""

    CHANGED = 2  # a change was made (or, with --dry-run, would be): what an Ansible task reports as changed
