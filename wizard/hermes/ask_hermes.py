"""Ask an installed Hermes itself whether its gateway would start: run by HERMES'S Python.

Usage (by `wizard.hermes.verify`, never imported by hermes-wizard):
    <hermes-python> -I ask_hermes.py HOME_COPY

HERMES_HOME must already be HOME_COPY, a throw-away copy (importing Hermes loads, and may
rewrite, `$HERMES_HOME/.env`).  It follows `hermes gateway run` up to its startup check: the
CLI's dotenv load, the import of `gateway.run` (which loads it again), the runner's config,
then the open-policy startup rule — and stops there; no adapter is created, nothing
connects.  Prints one JSON line on stdout:
    {"hermes": version, "would_start": bool|null, "refusal_platform", "refusal_reason",
     "enabled": [...], "error": "Type: message"|null, "rule_found": bool}
`would_start` is null when this Hermes has no startup rule we know how to call.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

RULE_NAMES = ("_own_policy_open_startup_violation",)  # the startup rule, by the names Hermes has used


def _answer(**fields) -> dict:
    base: dict[str, object] = {"hermes": _version(), "would_start": None, "refusal_platform": None,
                               "refusal_reason": None, "enabled": [], "error": None, "rule_found": False}
    base.update(fields)
    return base


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("hermes-agent")
    except Exception:
        return None


def _dotenv_load(with_home: bool) -> None:
    import hermes_cli
    from hermes_cli.env_loader import load_hermes_dotenv

    project_env = Path(hermes_cli.__file__).parent.parent.resolve() / ".env"
    if with_home:
        from hermes_constants import get_hermes_home

        load_hermes_dotenv(hermes_home=get_hermes_home(), project_env=project_env)
    else:
        load_hermes_dotenv(project_env=project_env)


def decide() -> dict:
    try:
        _dotenv_load(with_home=False)  # the CLI's load, before the gateway module is imported
        import gateway.run as runner  # its import performs the second load
    except Exception as exc:
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=True)
    rule = next((getattr(runner, name) for name in RULE_NAMES if hasattr(runner, name)), None)
    load = getattr(runner, "load_gateway_config_for_runner", None)
    if load is None:
        from gateway.config import load_gateway_config

        load = load_gateway_config
    try:
        config = load()
    except Exception as exc:  # the gateway would crash before its startup check
        return _answer(error=f"{type(exc).__name__}: {exc}", would_start=False, rule_found=rule is not None)
    enabled = sorted(platform.value for platform, cfg in config.platforms.items() if cfg.enabled)
    if rule is None:
        return _answer(enabled=enabled)
    reason = rule(config)
    return _answer(would_start=reason is None, refusal_reason=reason, enabled=enabled, rule_found=True,
                   refusal_platform=reason.split(":", 1)[0] if reason else None)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or os.path.realpath(os.environ.get("HERMES_HOME", "")) != os.path.realpath(argv[0]):
        print("usage: ask_hermes.py HOME (with HERMES_HOME set to HOME)", file=sys.stderr)
        return 2
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever Hermes prints goes to stderr; stdout carries only the answer
    sys.stdout = sys.stderr
    logging.disable(logging.CRITICAL)
    out.write(json.dumps(decide()) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
