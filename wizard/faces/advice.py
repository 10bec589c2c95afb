"""Advice that names a program found through a home, worded so that root never runs the owner's code.

`<Hermes's venv>/bin/pip` in a venv that lies in a user's home is that user's program: whoever owns the
venv, or any folder above it, can put anything there.  So when this process is root and the program or
a folder above it belongs to another user, the advice says `sudo -u <that user> <program> ...`.

The venv is named exactly (`<prefix>/bin/pip` of the site-packages Hermes was found in); when it has no
pip the advice is a placeholder, never a pip found further up the tree (once `//bin/pip`, the system's).

Contract: pure apart from a few stats; every command returned is shell-quoted and made visible
(hermes_wizard.core.safetext: a path from a home may hold escape sequences).
"""

from __future__ import annotations

import os
import pwd
import shlex
from pathlib import Path

from hermes_wizard.core.safetext import visible

PIP_PLACEHOLDER = "<Hermes's venv>/bin/pip install hermes-wizard"


def venv_pip(site_packages: Path | None) -> Path | None:
    """`<prefix>/bin/pip` of the venv whose `lib/python3.X/site-packages` is `site_packages`, if it is a file."""
    return venv_program(site_packages, "pip")


def hermes_advice(site_packages: Path | None, *args: str) -> str:
    """`hermes ARGS` as the user types it; as root on another user's Hermes, that venv's own `hermes` (or
    `hermesx`, the repackaged 0.20.1's name) run as its owner: `sudo -u <owner> <venv>/bin/hermes ARGS`."""
    program = venv_program(site_packages, "hermes", "hermesx")
    if program is not None and foreign_owner(program) is not None:
        return command_for(program, *args)
    return visible(shlex.join([program.name if program is not None else "hermes", *args]))


def venv_program(site_packages: Path | None, *names: str) -> Path | None:
    """The first of `names` in `<prefix>/bin` of the venv whose site-packages is `site_packages`."""
    if site_packages is None or site_packages.parent.parent.name != "lib":
        return None
    for name in names:
        program = site_packages.parents[2] / "bin" / name
        if os.path.isfile(program):
            return program
    return None


def pip_install_advice(site_packages: Path | None) -> str:
    """The command that installs hermes-wizard into Hermes's venv, as whoever may run that venv's pip."""
    pip = venv_pip(site_packages)
    return command_for(pip, "install", "hermes-wizard") if pip is not None else PIP_PLACEHOLDER


def command_for(program: Path, *args: str) -> str:
    """`program args`, prefixed with `sudo -u <owner>` when root would otherwise run another user's code."""
    words = [str(program), *args]
    owner = foreign_owner(program)
    if owner is not None:
        words = ["sudo", "-u", owner, *words]
    return visible(shlex.join(words))


def foreign_owner(program: Path) -> str | None:
    """The user (name, or `#uid` as sudo takes it) other than root who owns `program` or the nearest folder
    above it that is not root's; None when this process is not root or everything is root's."""
    if os.geteuid() != 0:
        return None  # a user is told to run programs as themselves, as anyone would be
    for path in (program, *program.parents):
        try:
            uid = os.lstat(path).st_uid
        except OSError:
            continue
        if uid != 0:
            return _name(uid)
    return None


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"#{uid}"
