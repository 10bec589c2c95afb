"""The home on the commands a report prints for its user to run.

A finding's fix, the verdict line and the plan's notes name commands ("hermes-wizard doctor --fix"); run as
printed, such a command acts on the home it finds by itself ($HERMES_HOME, else ~/.hermes: the host fact
`HostFacts.default_home`).  For any other home, `home_words` gives the flags that name the one judged and
`naming_the_home` writes them into every command of ours in a text, once, where the report is made
(judge/engine.py) and where the plan words its notes.  A text that already names a home (`--home`, as HW403's
"the home the service runs") is left as it is.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

# our commands that take --home (and --profile): the flags go after the subcommand (`secrets migrate`: its own)
_COMMAND = re.compile(r"(?<![\w/.-])hermes-wizard (?:secrets migrate|check|doctor|undo|setup|access|pairing)(?![\w-])")


def home_words(home: Path, profile: str, default: Path | None) -> str:
    """" --home HOME[ --profile NAME]" (shell-quoted) for a home a command would not find by itself, else "".
    `home` is the folder judged (a profile's own folder under <root>/profiles/<name>); `default` None: unknown,
    nothing is added."""
    root = home.parent.parent if profile != "default" else home
    if default is None or (root == default and profile == "default"):
        return ""
    return f" --home {shlex.quote(str(root))}" + (f" --profile {shlex.quote(profile)}" if profile != "default" else "")


def naming_the_home(text: str, words: str) -> str:
    """`text` with `words` (from `home_words`) after the subcommand of each of our commands in it."""
    if not words or "hermes-wizard " not in text or "--home" in text:
        return text
    return _COMMAND.sub(lambda found: found.group(0) + words, text)
