"""Which Hermes a command judges for: the detected one, or the one its arguments name.

`--hermes-version X` says which Hermes is installed (detection is skipped); `--target X`
judges the home as X would, before an upgrade.  Shared by `check`, the gate and `doctor`.
The gate loads this module: what only `check`'s text tip needs (the install advice) is imported lazily,
in `plugin_tip`.
"""

from __future__ import annotations

import os
from pathlib import Path

from hermes_wizard.hermes.install import plugin_installed
from hermes_wizard.hermes.loader.plugins import HostFacts
from hermes_wizard.hermes.versions import judgement


def host_facts(args, home: Path):
    """The host facts of the Hermes that runs `home`, with the version the arguments ask to judge for."""
    facts = HostFacts.detect(home, args.hermes_python, dict(os.environ))
    if getattr(args, "target", None):
        facts.hermes = judgement(args.target, None, "target")
    elif getattr(args, "hermes_version", None):
        facts.hermes = judgement(args.hermes_version, None, "given")
    return facts


def plugin_tip(facts) -> str | None:
    """One line for a home whose Hermes was found without this tool's plugin: how to get `hermes wizard`."""
    site = getattr(facts, "site_packages", None)
    if site is None:
        return None
    if plugin_installed(site) is not False:
        return None
    from hermes_wizard.faces.advice import pip_install_advice  # as the venv's owner when root runs on their home

    return (f"Tip: `{pip_install_advice(site)}` and `hermes plugins enable wizard` add `hermes wizard` (this "
            "tool inside Hermes) and let the gateway read secrets from the OS keyring.")
