"""Pairing from the screen that says "not paired": Hermes's own interactive login, run in this terminal.

WhatsApp pairs with `hermes whatsapp` (mode, bridge install, QR code; it writes `creds.json` into the
home's session folder and WHATSAPP_* into `.env` itself).  Weixin logs in by QR code inside `hermes gateway
setup` (choose Weixin; `_setup_weixin` → `qr_login` saves the account and token).  Both are Hermes 0.18.2 and
0.19.0's own commands; both need a terminal (`hermes whatsapp` refuses without one) and WhatsApp's bridge
needs Node.js.

`login_for(report, platform)` returns the command to run, or why it cannot run here with what to run where:
* the Hermes that runs the home (`<prefix>/bin/hermes` of its detected venv, else `hermes` on PATH);
* never across users: a home that is not the caller's (root on a user's home) is paired by its owner —
  Hermes's login is the owner's code and needs a terminal, and a terminal is exactly what root must never
  hand to the owner's code (ARCHITECTURE.md, "Contracts": anything from a home runs confined) — so the answer is the
  `sudo -u OWNER …` line to give them;
* WhatsApp without Node.js: say to install it first.
The environment is ours with HERMES_HOME pointed at the home (a profile included).

Contract: pure apart from looking at the file system; nothing here runs anything (the faces do, through
faces/handover.py: on a pty of its own, so its Ctrl+C is its alone; the TUI suspended, the plain face between
two prompts).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.core.homeroot import foreign_owner
from hermes_wizard.core.values import Value, value_class
from hermes_wizard.hermes.loader.plugins import node_present

if TYPE_CHECKING:
    from hermes_wizard.judge.engine import HomeReport

LOGIN_WORDS = {"whatsapp": ("whatsapp",), "weixin": ("gateway", "setup")}
OFFER_VERBS = {"whatsapp": "Pair now", "weixin": "Log in by QR"}  # what every face offers it as
WHAT_TO_CHOOSE = {"whatsapp": "choose the mode, then scan the QR code with the phone that owns the number",
                  "weixin": "choose Weixin in Hermes's list, then scan the QR code with WeChat"}

if TYPE_CHECKING:
    from collections.abc import Mapping


@value_class
class Login(Value):
    platform: str
    argv: tuple[str, ...]
    env: Mapping[str, str]  # a FrozenMap: the environment the login runs with
    says: str  # what the user is told before the terminal is handed over

    @property
    def shown(self) -> str:
        return shlex.join(self.argv)


def can_pair(platform: str) -> bool:
    return platform in LOGIN_WORDS


def offer_words(platform: str) -> str:
    """The offer of the login, as every face words it (the TUI's button, the plain face's question):
    "Pair now (hermes whatsapp)", "Log in by QR (hermes gateway setup)"."""
    return f"{OFFER_VERBS[platform]} ({' '.join(('hermes', *LOGIN_WORDS[platform]))})"


def login_needed(report: HomeReport, platform: str) -> bool:
    """Whether the login is the thing to do now: the platform is not set up yet, or it cannot connect (WhatsApp
    not paired, Weixin without its account); a face offers it either way, first where it is needed."""
    transport = report.transports.get(platform)
    return transport is None or transport.dead


def login_for(report: HomeReport, platform: str, environ: dict[str, str] | None = None) -> Login | str:
    """The Hermes login for `platform` on `report.home`, or why not here (with what to run where)."""
    environ = dict(os.environ if environ is None else environ)
    if not can_pair(platform):
        return f"{platform} has no interactive login in Hermes"
    home = Path(report.home)
    hermes = _hermes_program(report, environ)
    words = LOGIN_WORDS[platform]
    command = shlex.join([str(hermes or "hermes"), *words])
    owner = foreign_owner(home)
    if owner is not None:
        return (f"This home belongs to {owner}: pair it as {owner}, in their own terminal: "
                f"sudo -u {owner} env HERMES_HOME={shlex.quote(str(home))} {command}")
    if hermes is None:
        return (f"Hermes's own command was not found (no hermes in the home's venv or on PATH); install Hermes, "
                f"then run: HERMES_HOME={shlex.quote(str(home))} hermes {' '.join(words)}")
    if platform == "whatsapp" and not node_present(home, environ):
        return (f"WhatsApp's bridge needs Node.js, which is not installed here: install Node.js 18 or newer, "
                f"then run: HERMES_HOME={shlex.quote(str(home))} {command}")
    env = dict(environ, HERMES_HOME=str(home))
    return Login(platform, (str(hermes), *words), FrozenMap(env),
                 f"Running {command} for {home}: {WHAT_TO_CHOOSE[platform]}. The wizard comes back when it ends.")


def _hermes_program(report: HomeReport, environ: dict[str, str]) -> Path | None:
    facts = getattr(report, "facts", None)
    site = getattr(facts, "site_packages", None)
    if site is not None:
        candidate = Path(site).parent.parent.parent / "bin" / "hermes"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("hermes", path=environ.get("PATH"))
    return Path(found) if found else None
