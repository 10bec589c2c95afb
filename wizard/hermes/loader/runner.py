"""What `GatewayRunner.__init__` makes of the config it loaded, where that crashes before the startup rule.

`hermes gateway run` builds its runner (`start_gateway`: `GatewayRunner(None)`) before the runner's `start()`
runs the startup rule, and the constructor reads values the config loader only carried, outside any guard.
The one asked here (through `Model.check_runner`; 0.18.0 to 0.19.0 have it, 0.17.0 has no such value):

  * the session-reset policy's `bg_process_max_age_hours` — from config.yaml's `session_reset:` (0.19 also
    `gateway: session_reset:`) or gateway.json's `default_reset_policy`, kept as written by
    `SessionResetPolicy.from_dict` (24 when absent or null) — becomes seconds only when `value and value > 0`
    (0.19.0 gateway/run.py:3116-3121, 0.18.2 :2844-2849, 0.18.0 :2651-2656).  A truthy value that is not a
    number (a string, a quoted number too; a list, a mapping, a date) raises TypeError there: the gateway
    crashes at every start.  An empty string, list or mapping, 0, a negative number and null are harmless.

The other reads of the constructor are the resolver's (`resolve._runner_blocker`: config.yaml with `${VAR}`
expanded, before this one).

Contract: `check_session_reset_age` raises only `LoaderCrash`, naming the value's file and key path (removing
the value ends the crash: Hermes's default applies); it never raises for a policy the loader rejected first.
"""

from __future__ import annotations

from typing import Any

from hermes_wizard.hermes.loader.state import LoaderCrash

AGE_KEY = "bg_process_max_age_hours"


def check_session_reset_age(gw_data: Any, from_json: Any, yaml_cfg: Any) -> None:
    """Raise where the runner's `value and value > 0` fails on the policy `from_dict` built from `gw_data`
    (gateway.json as read is `from_json`, config.yaml's data `yaml_cfg`: they tell where the policy came from)."""
    policy = gw_data.get("default_reset_policy") if isinstance(gw_data, dict) else None
    if not isinstance(policy, dict):
        return  # absent: 24; not a mapping: 0.19 reads {} (0.18's from_dict has crashed on it already)
    value = policy.get(AGE_KEY)
    if not value or isinstance(value, (int, float)):  # bool is an int: true is one hour
        return
    where: tuple[str, ...]
    if isinstance(from_json, dict) and policy is from_json.get("default_reset_policy"):
        file, where = "gateway.json", ("default_reset_policy", AGE_KEY)
    elif isinstance(yaml_cfg, dict) and policy is yaml_cfg.get("session_reset"):
        file, where = "config.yaml", ("session_reset", AGE_KEY)
    else:  # 0.19's nested fallback
        file, where = "config.yaml", ("gateway", "session_reset", AGE_KEY)
    dotted = ".".join(where)
    raise LoaderCrash(f"{file}'s {dotted} is {_shown(value)}, not a number: TypeError: '>' not supported "
                      f"between instances of '{_type_name(value)}' and 'int'",
                      f"remove {dotted} from {file} (or write it as a number of hours, without quotes)",
                      where, file)


def _type_name(value: Any) -> str:
    """The type as Python's TypeError names it ('str', 'datetime.date')."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _shown(value: Any) -> str:
    if isinstance(value, str):  # quoted as written in JSON (json itself stays off the gate's path)
        return '"' + value[:36].replace("\\", "\\\\").replace('"', '\\"') + ('..."' if len(value) > 36 else '"')
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "a mapping"
    return f"a {type(value).__name__}"
