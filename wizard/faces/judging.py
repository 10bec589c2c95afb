"""Which Hermes a command judges for: the detected one, or the one its arguments name.

`--hermes-version X` says which Hermes is installed (detection is skipped); `--target X`
judges the home as X would, before an upgrade.  Shared by `check`, the gate and `doctor`.
The gate loads this module: what only `check`'s text tip needs (the install advice, the plugin's name, the
reader of `plugins.enabled`: ~5 ms together) is imported lazily, in `plugin_tip` and `_enables_plugin`.
Where Hermes admits plugins through its package manager (the main line: upstream's main, the 0.22.2 fork), the
tip says what that takes offline and that this command does the same without the plugin.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.hermes.install import plugin_installed
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement

if TYPE_CHECKING:
    from hermes_wizard.faces.fastargs import CommandArgs
    from hermes_wizard.judge.engine import HomeReport


def host_facts(args: CommandArgs, home: Path) -> HostFacts:
    """The host facts of the Hermes that runs `home`, with the version the arguments ask to judge for."""
    facts = HostFacts.detect(home, args.hermes_python, dict(os.environ))
    if getattr(args, "target", None):
        facts = facts.judged_as(judgement(args.target, None, "target"))
    elif getattr(args, "hermes_version", None):
        facts = facts.judged_as(judgement(args.hermes_version, None, "given"))
    return facts


def plugin_tip(facts: HostFacts, reports: Sequence[HomeReport] = ()) -> str | None:
    """One line about `hermes wizard` (this tool as a Hermes plugin) for the Hermes found, or None: how to get it
    where it is not installed; where that Hermes admits plugins only through its package manager
    (`facts.plugin_admission`: the main line), what that takes and what to run instead, also when it is
    installed but a home judged in `reports` does not enable it (what a refused admission leaves behind)."""
    site = getattr(facts, "site_packages", None)
    if site is None:
        return None
    installed = plugin_installed(site)
    if installed is None:
        return None
    # as the venv's owner when root runs on their home
    from hermes_wizard.core.keyring_store import PLUGIN_NAME
    from hermes_wizard.faces.advice import hermes_advice, pip_install_advice

    enable = hermes_advice(site, "plugins", "enable", PLUGIN_NAME)
    if not getattr(facts, "plugin_admission", False):
        if installed:
            return None
        return (f"Tip: `{pip_install_advice(site)}` and `{enable}` add `hermes wizard` (this "
                "tool inside Hermes) and let the gateway read secrets from the OS keyring.")
    admission = (f"this Hermes enables a plugin only through its package manager (`{enable}`), which downloads "
                 "Hermes's own Python first and is refused offline")
    if not installed:
        return (f"Tip: `hermes wizard` (this tool inside Hermes) is not offered here: {admission}, and Hermes asks "
                "that its environment not be changed with pip. `hermes-wizard` itself needs neither.")
    if all(_enables_plugin(report) for report in reports):
        return None
    return (f"Tip: hermes-wizard is in Hermes's venv but its plugin is not enabled here, so there is no `hermes "
            f"wizard`: {admission} (then: `{hermes_advice(site, 'pm', 'install')}` online, and enable again). "
            "`hermes-wizard` itself does the same checks and repairs; only the gateway's reading of OS-keyring "
            "secrets needs the plugin.")


def _enables_plugin(report: HomeReport) -> bool:
    from hermes_wizard.hermes.loader.secret_sources import keyring_refs

    snapshot = report.snapshot
    data = snapshot.yaml.data if snapshot.yaml.exists and snapshot.yaml.error is None else None
    return keyring_refs(data, snapshot.home).plugin_listed
