"""Version checks: what the installed Hermes is, and what an upgrade will meet."""

from __future__ import annotations

from wizard.checks import Context, Hit, check
from wizard.hermes.versions import FIRST_REFUSING, MODELLED

_FIRST = ".".join(map(str, FIRST_REFUSING))


@check("HW150", "refusal-after-upgrade", "warning",
       "This Hermes starts with a platform open to everyone; Hermes 0.18 and later will refuse to start.",
       what=f"""Hermes before {_FIRST} has no startup refusal: a platform whose dm_policy or group_policy is 'open'
without an allow-all opt-in simply lets everyone in. From {_FIRST} on, the same configuration makes the whole
gateway refuse to start (and exit 0, so a service manager restarts it forever).""",
       why="""Today anyone who can message the bot reaches your agent, which runs tools on this machine. After the
next upgrade the gateway goes down, taking every other platform with it.""",
       fix="""Before upgrading, choose pairing (recommended), an allowlist, or keep it open on purpose with the
platform's *_ALLOW_ALL_USERS=true. `hermes-wizard check --target 0.19.0` shows the home as the new version will
judge it; `hermes-wizard doctor --target 0.19.0 --fix` repairs it for that version.""")
def refusal_after_upgrade(ctx: Context):
    target = MODELLED[-1]
    for violation in ctx.upgrade_violations:
        sides = " and ".join(violation.open_sides())
        yield Hit(violation.platform,
                  f"{sides} is open without {violation.allow_all_env}: open to everyone with this Hermes; Hermes "
                  f"{_FIRST} and later refuse to start the gateway for it.",
                  f"pairing (recommended) · allowlist · keep open: {violation.allow_all_env}=true  → "
                  f"hermes-wizard doctor --target {target}")
