"""Secrets kept in the OS keyring (hermes-wizard's secret source, wizard/hermes/loader/secret_sources.py).

HW505 guards the rule that an entry belongs to its home (wizard/core/keyring_store.py `belongs_to`)."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_wizard.core.keyring_store import PLUGIN_NAME, SOURCE_NAME, entry_for
from hermes_wizard.hermes.install import plugin_installed
from hermes_wizard.judge.checks.registry import Context, Hit, check

MIGRATE = "hermes-wizard secrets migrate --to keyring"


def _platform_of(ctx: Context, variable: str) -> str | None:
    return next((name for name, spec in ctx.model.platforms().items() if variable in spec.credentials), None)


@check("HW501", "keyring-entry-missing", "error",
       "config.yaml maps a secret to an OS keyring entry that does not exist.",
       what=f"""`secrets.{SOURCE_NAME}.env` names, for each variable, the keyring entry (service and username)
that holds it. The entry was looked up in the keyring of the user running this check and is not there.""",
       why="""Hermes's secret source finds nothing, so the variable stays unset: the platform that needs it
gets no credential (Hermes disables it, or it cannot connect).""",
       fix=f"""Put the value back in `.env` and run `{MIGRATE}` (it stores it and removes it from `.env`),
or remove the mapping. Check as the user the gateway runs as: each user has their own keyring.""")
def keyring_entry_missing(ctx: Context) -> Iterable[Hit]:
    kept = ctx.snapshot.keyring
    if kept is None:
        return
    for variable in kept.missing:
        service, username = kept.refs.mapped[variable]
        yield Hit(_platform_of(ctx, variable), f"{variable} is mapped to the keyring entry {service} / {username}, "
                  "which does not exist in this user's keyring: the gateway gets no value for it.",
                  f"put {variable} back in .env, then {MIGRATE}")


@check("HW502", "keyring-source-inactive", "error",
       "Secrets are kept in the OS keyring, but Hermes will not run the source that reads them.",
       what=f"""Hermes applies `secrets.{SOURCE_NAME}` only through hermes-wizard's plugin: installed in
Hermes's own Python, listed in `plugins.enabled`, not in `plugins.disabled`, with
`secrets.{SOURCE_NAME}.enabled: true`, and HERMES_SAFE_MODE unset.""",
       why="""Every variable mapped to the keyring stays unset in the gateway: its platforms lose their
credentials.""",
       fix=f"""Install the plugin into Hermes's venv (`<hermes venv>/bin/pip install hermes-wizard`), then
`hermes plugins enable {PLUGIN_NAME}` (where Hermes admits plugins through its package manager, the main line,
that step downloads Hermes's own Python and is refused offline: `hermes pm install` online first); or move the
secrets back: `hermes-wizard secrets migrate --to env`.""")
def keyring_source_inactive(ctx: Context) -> Iterable[Hit]:
    kept = ctx.snapshot.keyring
    if kept is None or not kept.refs.mapped:
        return
    reason = kept.refs.inactive_because(plugin_installed(ctx.facts.site_packages), ctx.effective.environ)
    if reason:
        names = ", ".join(sorted(kept.refs.mapped))
        needs = "with hermes-wizard installed in Hermes's venv"
        if getattr(ctx.facts, "plugin_admission", False):  # the main line: admitted by Hermes's package manager
            needs += ("; this Hermes admits it through its package manager, which downloads Hermes's own Python and "
                      "is refused offline: `hermes pm install` online first")
        yield Hit(None, f"{names} {'is' if len(kept.refs.mapped) == 1 else 'are'} kept in the OS keyring, but "
                  f"{reason}: the gateway will not see {'it' if len(kept.refs.mapped) == 1 else 'them'}.",
                  f"hermes plugins enable {PLUGIN_NAME} ({needs}), or hermes-wizard secrets migrate --to env")
    for problem in kept.refs.invalid:
        yield Hit(None, f"secrets.{SOURCE_NAME}.env: {problem}; Hermes skips it.", "hermes-wizard secrets migrate "
                  "--to keyring rewrites the mapping", "warning")


@check("HW503", "keyring-unreadable", "warning",
       "The OS keyring could not be read here: its secrets were assumed to be present.",
       what="""No usable keyring in this session (none installed, no D-Bus session bus — usual over SSH —, or
locked).""",
       why="""The verdict assumes every mapped entry exists. If the gateway's own session cannot read the keyring
either, its platforms get no credentials.""",
       fix="""Run the check in the session the gateway runs in (a desktop login, or a user service with an
unlocked keyring), or keep the secrets in `.env` (mode 0600): `hermes-wizard secrets migrate --to env`.""")
def keyring_unreadable(ctx: Context) -> Iterable[Hit]:
    kept = ctx.snapshot.keyring
    if kept is not None and kept.unreadable:
        yield Hit(None, f"{kept.unreadable}; {', '.join(sorted(kept.refs.mapped))} judged as present.",
                  "check again where the keyring is unlocked")


@check("HW504", "secret-in-env-and-keyring", "warning",
       "A secret mapped to the OS keyring is still set in `.env`, which wins.",
       what="""Hermes's secret sources fill only variables that are still empty after `.env` is loaded, and the
gateway re-reads `.env` on every turn.""",
       why="""The keyring entry is never used, and the secret still sits in plaintext in `.env`.""",
       fix=f"""`{MIGRATE}` stores the `.env` value in the keyring and removes the line.""")
def secret_in_env_and_keyring(ctx: Context) -> Iterable[Hit]:
    kept = ctx.snapshot.keyring
    for variable in sorted(kept.refs.mapped if kept else ()):
        if ctx.snapshot.env.values.get(variable):
            yield Hit(_platform_of(ctx, variable), f"{variable} is mapped to the OS keyring but also set in .env, "
                      "which wins: the keyring entry is unused and the secret is still in plaintext.", MIGRATE)


@check("HW505", "keyring-entry-of-another-home", "error",
       "config.yaml maps a secret to a keyring entry that is not this home's own.",
       what="""Each variable kept in the OS keyring has exactly one entry for a home: service `hermes-wizard`,
username `<this home's real path>:<VARIABLE>`. This mapping names another one: another home's path (a user's
other profile, or someone else's home when the keyring is shared, as root's is), another variable, or another
service.""",
       why="""A home must never take another home's token (one config.yaml could otherwise copy a victim's secret
into its own `.env` through `secrets migrate`, or into its gateway). So the entry is refused everywhere:
hermes-wizard's source in Hermes skips it (the variable stays unset), `check` does not read it,
`secrets migrate` and `undo` do not touch it.""",
       fix=f"""Map the variable to this home's own entry (the finding names its exact username), or put the value
in `.env` and run `{MIGRATE}`, which stores it under this home's entry and rewrites the mapping.""")
def keyring_entry_of_another_home(ctx: Context) -> Iterable[Hit]:
    kept = ctx.snapshot.keyring
    for variable, (service, username) in sorted((kept.refs.foreign if kept else {}).items()):
        own = entry_for(ctx.snapshot.home, variable)
        yield Hit(_platform_of(ctx, variable), f"{variable} is mapped to the keyring entry {service[:80]} / "
                  f"{username[:200]}, which is not this home's own ({own[0]} / {own[1]}): it is refused, so the "
                  "gateway gets no value for it from the keyring.",
                  f"map {variable} to {{service: {own[0]}, username: '{own[1]}'}}, or put it in .env and {MIGRATE}")
