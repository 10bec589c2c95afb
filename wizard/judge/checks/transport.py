"""Enablement and transport checks: is each enabled platform able to connect at all?"""

from __future__ import annotations

from collections.abc import Iterable

from hermes_wizard.hermes.loader.envrules import coerce_bool
from hermes_wizard.hermes.loader.plugins import SDK_MODULES
from hermes_wizard.judge.checks.registry import Context, Hit, check
from hermes_wizard.judge.provenance import env_source


@check("HW201", "dead-transport", "error",
       "An enabled platform cannot connect under any policy (not paired, no token).",
       what="""WhatsApp needs a paired Baileys session (creds.json in the session directory Hermes reads);
Weixin needs an account ID and a token (from .env or weixin/accounts/<id>.json). Without them the adapter fails
with a non-retryable error.""",
       why="""A dead platform still counts for the startup gate: its stale open policy can keep the whole gateway
down. If it is the only platform, Hermes exits with code 78.""",
       fix="""Pair or log in again (`hermes whatsapp`, Weixin QR login in `hermes gateway setup`), or disable the
platform (doctor --fix disables it without deleting credentials).""")
def dead_transport(ctx: Context) -> Iterable[Hit]:
    for name, transport in ctx.transports.items():
        if transport.dead:
            command = {"whatsapp": "run `hermes whatsapp` to pair (scan the QR code), or WHATSAPP_ENABLED=false",
                       "weixin": "log in again with `hermes gateway setup` (Weixin), or disable weixin"}[name]
            yield Hit(name, f"{transport.detail}. It cannot connect under any policy.", command)


@check("HW202", "enabled-despite-yaml-false", "warning",
       "config.yaml says `enabled: false`, but env credentials enable the platform anyway.",
       what="""For whatsapp_cloud, email, sms, dingtalk, feishu, wecom, weixin, qqbot, yuanbao and others,
Hermes's env block sets enabled=True whenever the credentials are in .env, overriding YAML (gateway/config.py:2188).
WhatsApp is re-enabled by the plugin pass when any whatsapp setting is in YAML.""",
       why="""You think the platform is off; it runs, and its policy counts for the startup gate.""",
       fix="""Comment out or remove the platform's credentials in .env (doctor --fix comments them with a marker
it can restore).""")
def enabled_despite_false(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    for name, raw in ctx.effective.yaml_explicit.items():
        state = ctx.effective.platforms.get(name)
        if state is None or not state.enabled:
            continue
        if coerce_bool(raw, False):
            continue
        known = platforms[name].credentials if name in platforms else ()
        creds = [key for key in known if ctx.effective.environ.get(key)]
        why = ", ".join(env_source(ctx.snapshot, key) for key in creds) or "env credentials"
        yield Hit(name, f"config.yaml sets enabled: {raw!r} but {why} force-enable it.",
                  "remove or comment out those .env lines to really disable it")


@check("HW203", "placeholder-token", "warning",
       "A token is a placeholder ('changeme', '***', ...): Hermes disables the platform.",
       what="""Hermes's validation disables telegram, discord, slack, mattermost, matrix and weixin when their
token is shorter than 4 characters or a known placeholder (gateway/config.py:1671).""",
       why="""The platform silently does not start.""",
       fix="""Put the real token in .env.""")
def placeholder_token(ctx: Context) -> Iterable[Hit]:
    for name, env_name in ctx.effective.placeholder_disabled.items():
        yield Hit(name, f"{env_name} is a placeholder; Hermes will NOT start {name}.", f"set a real {env_name}")


@check("HW204", "missing-credentials", "warning",
       "An enabled platform lacks a credential it needs to connect.",
       what="""Some platforms are enabled by one variable but need others to connect (Matrix homeserver,
Mattermost URL, Slack app token, Twilio auth token, ...).""",
       why="""The adapter fails at connect time; the rest of the gateway runs without it.""",
       fix="""Add the missing variables to .env.""")
def missing_credentials(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    for name, state in ctx.effective.platforms.items():
        spec = platforms.get(name)
        if not state.enabled or spec is None or name in ctx.transports and ctx.transports[name].dead:
            continue
        if not spec.env_credentials_checked:
            continue
        missing = [key for key in spec.credentials if not ctx.effective.environ.get(key, "").strip()]
        if name == "telegram" and state.token:
            missing = []
        if missing and len(missing) < len(spec.credentials) + 1:
            yield Hit(name, f"{', '.join(missing)} not set: {name} will fail to connect.",
                      f"add {', '.join(missing)} to .env")


@check("HW205", "sdk-missing", "warning",
       "A configured platform's SDK is not installed in Hermes's Python: Hermes skips it.",
       what="""Plugin platforms are enabled only when their check succeeds, which needs their Python SDK
(python-telegram-bot, discord.py, slack-bolt, aiohttp, ...) in Hermes's own environment.""",
       why="""The platform is configured but never starts, with nothing but a debug log line.""",
       fix="""Install Hermes's messaging extras into its venv: pip install 'hermes-agent[messaging]'.""")
def sdk_missing(ctx: Context) -> Iterable[Hit]:
    platforms = ctx.model.platforms()
    if ctx.facts.modules is None:
        return
    for name, modules in SDK_MODULES.items():
        spec = platforms.get(name)
        if spec is None or not spec.credentials:
            continue
        configured = all(ctx.effective.environ.get(key, "").strip() for key in spec.credentials[:1])
        state = ctx.effective.platforms.get(name)
        if configured and (state is None or not state.enabled) and not ctx.facts.has(*modules):
            absent = [m for m in modules if m not in ctx.facts.modules]
            yield Hit(name, f"{spec.credentials[0]} is set but {', '.join(absent)} is missing from Hermes's Python "
                      f"({ctx.facts.site_packages}): {name} will not start.",
                      "pip install 'hermes-agent[messaging]' in Hermes's venv")
