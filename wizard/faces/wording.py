"""Wording shared by the faces: the sentences the Textual screens (and any other face) show.

Plain functions from a judged report to words; no UI imports (no textual, no rich), so the
screens can share them without importing each other and `wizard/` stays importable without
the TUI installed.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible
from hermes_wizard.faces.advice import foreign_owner
from hermes_wizard.judge.report import verdict_clause
from hermes_wizard.plan.session import open_to_everyone
from hermes_wizard.service.scope import ServiceScope
from hermes_wizard.service.supervisors import advice
from hermes_wizard.service.systemd import systemctl

if TYPE_CHECKING:
    from hermes_wizard.hermes.loader.catalog import Spec
    from hermes_wizard.judge.engine import HomeReport


def verdict_words(report: HomeReport) -> tuple[str, bool]:
    """The verdict Hermes would reach at start-up, as a sentence beginning with ✓ or ✗ (a screen may
    strip the mark), and whether it starts: `check`'s own clause (wizard/judge/report.py)."""
    clause = verdict_clause(report)
    mark = "?" if report.unjudged is not None else "✓" if report.would_start else "✗"
    return f"{mark} {clause[0].upper()}{clause[1:]}.", report.would_start


def tilde(text: str) -> str:
    """`text` with the user's home directory written `~` (as a shell prompt shows it): shorter on an
    80-column screen, and the same on every machine for the same home layout."""
    home = os.path.expanduser("~").rstrip("/")
    return text.replace(home + "/", "~/") if len(home) > 1 else text  # never for a home of "/"


def restart_hint(home: Path, scope: ServiceScope | None = None) -> str:
    """The real command that restarts what runs `home` among the units of `scope` (default: the machine's unit
    files): the systemd unit found, a supervisor's own commands, or — no service at all — how to run the
    gateway by hand."""
    serving = (scope if scope is not None else ServiceScope()).serving(Path(home))
    units = [u for u in serving if u.manager == "systemd" and not u.error]
    if units:
        return " ".join(systemctl(units[0].scope, "restart", units[0].name))
    if serving:
        return "; ".join(line for line in advice(serving[0]) if line.startswith(("stop", "start once")))
    owner = foreign_owner(Path(home))  # root on a user's home: Hermes would run the home's plugins as root
    if owner is not None:
        return visible(shlex.join(["sudo", "-u", owner, "env", f"HERMES_HOME={home}", "hermes", "gateway", "run"]))
    return "hermes gateway run" + ("" if str(home).endswith("/.hermes") else f" (with HERMES_HOME={home})")


def plural(count: int, noun: str, plural_form: str | None = None) -> str:
    """"1 change", "2 changes" (real plurals, never "change(s)")."""
    return f"{count} {noun if count == 1 else plural_form or noun + 's'}"


def open_words(report: HomeReport) -> str:
    """The platforms left open to everyone, in words ("" when none)."""
    names = open_to_everyone(report)
    if not names:
        return ""
    return (f"Open to everyone: {', '.join(names)} — anyone who can reach "
            f"{'that bot' if len(names) == 1 else 'those bots'} uses your agent, and its terminal, file and code "
            "tools on this machine.")


# What is on disk for a platform, and the command that fixes it (the words of screens/platform_screen.py).
STATE_FIXES = {
    "not-paired": "run `hermes whatsapp` and scan the QR code with the phone that owns the number",
    "empty-creds": "run `hermes whatsapp` again: the last pairing was interrupted",
    "invalid-creds": "run `hermes whatsapp` again to replace the damaged session",
    "unregistered": "run `hermes whatsapp` again: the login never completed",
    "wrong-session-dir": "move creds.json into the directory named above, or remove the other one",
    "missing-token": "log in again with `hermes gateway setup` (Weixin QR login)",
    "missing-account": "set WEIXIN_ACCOUNT_ID (the bot account from the QR login)",
}


def credential_state(report: HomeReport, name: str, short: bool = False) -> str:
    """One word or two for a platform's credentials: the transport's state on disk (`not-paired`,
    `empty-creds`, …) when one was checked, else present / missing / missing KEY (`short`: "incomplete",
    for a table column; the platform's own screen names the key)."""
    transport = report.transports.get(name)
    if transport is not None and transport.state != "unchecked":
        return transport.state
    spec = report.model.platforms()[name]
    missing = [key for key in spec.credentials if not report.effective.environ.get(key, "").strip()]
    if not missing:
        return "present"
    if len(missing) == len(spec.credentials):
        return "missing"
    return "incomplete" if short else f"missing {missing[0]}"


def disk_words(report: HomeReport, name: str) -> str:
    """What is on disk for `name` in a sentence, with its fix on a second line (escaped: it quotes a home)."""
    transport = report.transports.get(name)
    if transport is None or transport.state == "unchecked":
        row = next((r for r in report.rows if r.name == name), None)
        return f"Enabled: {'yes' if row and row.enabled else 'no'}."
    fix = STATE_FIXES.get(transport.state)
    owner = f" Owner detected from creds.json: +{visible(transport.owner)}." if transport.owner else ""
    return f"On disk: {visible(tilde(transport.detail))}.{owner}" + (f"\nFix: {fix}" if fix else "")


def current_access(report: HomeReport, platform: str, before: HomeReport | None = None) -> str:
    """The access mode a platform has in `report` (what an access question offers first): pairing for one
    that is off, open when opted in or open by policy, allowlist when IDs are listed.  With `before` (the
    home on disk, `report` being the plan's outlook): disabled when the plan turns an enabled platform off."""
    row = next((r for r in report.rows if r.name == platform), None)
    if row is None or not row.enabled:
        was = next((r for r in before.rows if r.name == platform), None) if before is not None else None
        return "disabled" if was is not None and was.enabled else "pairing"
    spec = report.model.platforms()[platform]
    if row.opted_in or "open" in (row.dm_policy, row.group_policy):
        return "open"
    if spec.allowlist_env and report.effective.environ.get(spec.allowlist_env, "").strip():
        return "allowlist"
    return "pairing"


def platform_title(spec: Spec) -> str:
    """A platform as people know it, then its id once: "Weixin (WeChat) · weixin" (never "(WeChat) (weixin)")."""
    return f"{spec.label} · {spec.name}"


def ssh_note(env_path: str) -> str:
    """Said once over SSH (both faces): where typed secrets go, and why the keyring is usually not offered."""
    return (f"Over SSH: the secrets you type here are written to {env_path} with mode 0600 (readable by its owner "
            "only); they cross this SSH connection, encrypted, and are never shown or logged. An OS keyring is "
            "usually unavailable over SSH (no desktop session bus), so it is offered only where one answers.")
