"""Version checks: what the installed Hermes is, and what an upgrade will meet."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_wizard.hermes.versions import FIRST_REFUSING_NAME, NEWEST
from hermes_wizard.judge.checks.registry import Context, Hit, check

_FIRST = FIRST_REFUSING_NAME


@check("HW150", "refusal-after-upgrade", "warning",
       f"An open policy this Hermes accepts; Hermes {FIRST_REFUSING_NAME} and later will refuse to start for it.",
       what=f"""Hermes before {_FIRST} has no startup refusal: a platform whose dm_policy or group_policy is 'open'
without an allow-all opt-in starts, its adapter forwards every sender, and the gateway's own authorization
(pairing store, allowlists) still decides who is answered: strangers are offered pairing. From {_FIRST} on, the
same configuration makes the whole gateway refuse to start (and exit 0, so a service manager restarts it
forever).""",
       why="""The next upgrade takes the gateway down, and every other platform with it. Say now what you mean:
pairing, an allowlist, or open to everyone on purpose.""",
       fix=f"""Before upgrading, choose pairing (recommended), an allowlist, or keep it open on purpose with the
platform's *_ALLOW_ALL_USERS=true. `hermes-wizard check --target {NEWEST}` shows the home as the new version will
judge it; `hermes-wizard doctor --target {NEWEST} --fix` repairs it for that version.""")
def refusal_after_upgrade(ctx: Context) -> Iterable[Hit]:
    target = NEWEST
    for violation in ctx.upgrade_violations:
        sides = " and ".join(violation.open_sides())
        yield Hit(violation.platform,
                  f"{sides} is open without {violation.allow_all_env}: with this Hermes strangers reach the gateway "
                  f"and are offered pairing; Hermes {_FIRST} and later refuse to start the gateway for it.",
                  f"pairing (recommended) · allowlist · keep open: {violation.allow_all_env}=true  → "
                  f"hermes-wizard doctor --target {target}")


@check("HW160", "hermes-disagrees", "error",
       "The installed Hermes itself, asked on a copy of the home, decides differently from hermes-wizard.",
       what="""`--verify` runs the installed Hermes's own loader and startup rule on a throw-away copy of the home.
Its verdict (would it start, which platform it names, which platforms it enables) differs from this tool's.""",
       why="""Hermes's own answer is the truth for this machine: the model is wrong for this home or this version
(often a newer Hermes that changed a rule). Trust Hermes's verdict until hermes-wizard is fixed.""",
       fix="""Act on Hermes's verdict, and report the difference to hermes-wizard with the output of
`hermes-wizard check --verify --format json` (secrets are not in it).""")
def hermes_disagrees(ctx: Context) -> Iterable[Hit]:
    told = ctx.hermes_answer
    if told is None or not told.decided or _asked(ctx):  # an asked Hermes's answer is the verdict itself
        return
    ours_start = ctx.effective.crash is None and not ctx.violations
    ours_names = ctx.violations[0].platform if ctx.violations else None
    ours_enabled = sorted(name for name, state in ctx.effective.platforms.items() if state.enabled)
    theirs_start = bool(told.would_start) and not told.error
    differences = []
    if ours_start != theirs_start or (not ours_start and not told.error and ours_names != told.refusal_platform):
        differences.append("the verdict")
    if not told.error and ours_enabled != sorted(told.enabled):
        differences.append(f"the enabled platforms (ours: {', '.join(ours_enabled) or 'none'}; Hermes's: "
                           f"{', '.join(sorted(told.enabled)) or 'none'})")
    if differences:
        ours = ("the gateway would start" if ours_start else
                f"the gateway would refuse to start, naming {ours_names}" if ours_names else
                "the gateway would crash at startup")
        yield Hit(None, f"Hermes {told.version or '?'} itself says: {told.verdict()}; hermes-wizard says: {ours}. "
                        f"They differ in {' and '.join(differences)}.",
                  "trust Hermes's verdict; report this with `hermes-wizard check --verify --format json`")


@check("HW161", "hermes-not-asked", "warning",
       "`--verify` was asked, but the installed Hermes could not be asked.",
       what="""Hermes's Python was not found, or running Hermes's own loader on a copy of the home failed or gave no
answer in time, or this Hermes has no startup rule that hermes-wizard knows how to call.""",
       why="""The verdict shown is hermes-wizard's model alone, not confirmed by Hermes itself.""",
       fix="""Name Hermes's interpreter with --hermes-python PATH (e.g. ~/.hermes/hermes-agent/venv/bin/python).""")
def hermes_not_asked(ctx: Context) -> Iterable[Hit]:
    told = ctx.hermes_answer
    if told is not None and not told.decided and not _asked(ctx):
        yield Hit(None, f"Hermes was not asked: {told.verdict()}.", "--hermes-python PATH")


@check("HW162", "unmodelled-hermes-not-asked", "error",
       "The installed Hermes is not modelled by hermes-wizard, and it could not be asked whether it starts.",
       what="""No model judges this Hermes exactly (a version newer than every model, or a fork installed under
another distribution name whose deciding files are not those a model was verified against), so `check` and the
gate ask the installed Hermes itself: its own loader and startup rule, run on a copy of the home, as the home's
owner, without a terminal, within a deadline.  That failed: its Python was not found or would not run, it gave no
answer in time, or its startup rule is not where any known version keeps it.""",
       why="""There is no verdict: hermes-wizard does not guess one from an older version's rules.  The gate lets
the gateway start (one journal line), so it is never the obstacle; but it cannot stop a restart loop either.""",
       fix="""Name Hermes's interpreter with --hermes-python PATH; or judge by a model's rules on purpose with
--hermes-version VERSION (the newest this tool models is the nearest); or upgrade hermes-wizard.""")
def unmodelled_hermes_not_asked(ctx: Context) -> Iterable[Hit]:
    told, judged = ctx.hermes_answer, ctx.facts.hermes
    if judged is not None and told is not None and not told.decided and _asked(ctx):
        yield Hit(None, f"{judged.named} could not be asked: {told.verdict()}; no verdict.",
                  f"--hermes-python PATH, or --hermes-version {judged.judged_as} to judge by that model's rules")


def _asked(ctx: Context) -> bool:
    """Is the installed Hermes's own answer the verdict (no model judges it exactly)?"""
    return ctx.facts.hermes is not None and ctx.facts.hermes.asked
