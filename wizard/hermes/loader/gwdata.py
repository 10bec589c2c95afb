"""The data `GatewayConfig.from_dict` reads, and the values in it that crash the gateway at start.

`base_layer` is legacy gateway.json as the loader starts from it; `lay_over` puts config.yaml's
`profile_routes` and `streaming` over it (the resolver's YAML phase calls it); `check_values` raises
where from_dict crashes, in every modelled Hermes.

`from_dict` (0.19.0 gateway/config.py:1029-1155, 0.18.2 :825-935) runs outside the loader's guard on the
data built from legacy `gateway.json` with config.yaml's keys laid over it.  The platform blocks are
the resolver's (`resolve._from_dict`); this module checks the rest, in from_dict's order:

  * `reset_by_type.<type>`, `reset_by_platform.<platform>` (a Hermes platform name only: others are
    skipped) and `default_reset_policy` (config.yaml's `session_reset`): `notify_exclude_platforms`
    goes through `tuple(...)`, a TypeError for anything not iterable (a number, a bool);
  * `sessions_dir` goes through `Path(...)`: a TypeError for anything but a string (null, a number,
    a bool, a list);
  * `profile_routes` (0.19 only, `parse_profile_routes(data.get("profile_routes") or [])`): a truthy
    value that is not iterable (a number, true) is a TypeError.

Each crash names where the value came from and how to remove it (`LoaderCrash.fix`), and carries the
gateway.json path of the value (`GatewayJsonCrash.key`) when removing it from gateway.json is the repair.

Contract: pure; `check_values` raises only `LoaderCrash`, the others never raise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_wizard.hermes.loader.catalog import platform_value
from hermes_wizard.hermes.loader.state import LoaderCrash

if TYPE_CHECKING:
    from collections.abc import Callable

    from hermes_wizard.core.shapes import Parsed
    from hermes_wizard.hermes.loader.inputs import JsonFile


class GatewayJsonCrash(LoaderCrash):
    """A crash caused by one value of gateway.json, which removing that value ends; `key` is its path."""

    def __init__(self, message: str, fix: str, key: tuple[str, ...]) -> None:
        super().__init__(message, fix, key, "gateway.json")


def base_layer(gateway_json: JsonFile) -> Any:
    """gateway.json as the loader's base layer (`json.load(f) or {}`; {} when it cannot be read): a copy
    as deep as the YAML phase writes into, so resolving never changes the snapshot (a second resolve, or
    `check_values` asking where a value came from, sees the file as it is)."""
    if not gateway_json.exists or gateway_json.error is not None:
        return {}
    data = gateway_json.data or {}
    if not isinstance(data, dict):
        return data
    copied = dict(data)
    platforms = copied.get("platforms")
    if isinstance(platforms, dict):
        copied["platforms"] = {name: _with_own_extra(block) for name, block in platforms.items()}
    return copied


def _with_own_extra(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    copied = dict(block)
    if isinstance(copied.get("extra"), dict):
        copied["extra"] = dict(copied["extra"])
    return copied


def lay_over(yaml_cfg: Parsed, gateway_section: Any, gw_data: Any, profile_routes: bool) -> None:
    """config.yaml's `profile_routes` (0.19 only: a list, top level first, else `gateway.profile_routes`) and
    `streaming` (a mapping, top level first, else `gateway.streaming`) replace gateway.json's before
    `from_dict` reads them (0.19.0 config.py:1294-1320, 0.18.2 :1053-1059): a `streaming: true` left in
    gateway.json is harmless under a YAML streaming mapping."""
    if profile_routes:
        routes = yaml_cfg.get("profile_routes")
        if routes is None and isinstance(gateway_section, dict):
            routes = gateway_section.get("profile_routes")
        if isinstance(routes, list):
            gw_data["profile_routes"] = routes
    streaming = yaml_cfg.get("streaming")
    if not isinstance(streaming, dict) and isinstance(gateway_section, dict):
        streaming = gateway_section.get("streaming")
    if isinstance(streaming, dict):
        gw_data["streaming"] = streaming


def check_values(gw_data: Any, from_json: Any, profile_routes: bool,
                 known: Callable[[object], str | None] = platform_value, session_reset: bool = True) -> None:
    """Raise where `from_dict` crashes on `gw_data`; `from_json` is gateway.json as read (it tells which
    values came from there), `profile_routes` whether this Hermes parses them (0.19 on), `known` its
    `Platform(name)` (the model's `platform_value`), `session_reset` whether it builds reset policies."""
    if not isinstance(gw_data, dict):
        return  # 0.19 coerces it to {}; 0.18's own check (v0_18.loader.check_from_dict) has raised already
    original = from_json if isinstance(from_json, dict) else {}
    for group in ("reset_by_type", "reset_by_platform") if session_reset else ():
        policies = gw_data.get(group)
        for name, policy in (policies.items() if isinstance(policies, dict) else ()):
            if group == "reset_by_platform" and known(name) is None:
                continue  # Platform(name) raises ValueError first, which from_dict skips
            _check_exclude(policy, (group, str(name)), in_json=True)
    if session_reset and "default_reset_policy" in gw_data:
        policy = gw_data["default_reset_policy"]
        _check_exclude(policy, ("default_reset_policy",), in_json=policy is original.get("default_reset_policy"))
    if "sessions_dir" in gw_data and not isinstance(gw_data["sessions_dir"], str):
        value = gw_data["sessions_dir"]
        raise GatewayJsonCrash(f"gateway.json's sessions_dir is {_shown(value)}, not a path: TypeError: expected "
                               f"str, bytes or os.PathLike object, not {type(value).__name__}",
                               "remove sessions_dir from gateway.json (or make it a folder path in quotes)",
                               ("sessions_dir",))
    routes = gw_data.get("profile_routes") if profile_routes else None
    if routes and not _iterable(routes):
        raise GatewayJsonCrash(f"gateway.json's profile_routes is {_shown(routes)}, not a list: TypeError: "
                               f"'{type(routes).__name__}' object is not iterable",
                               "remove profile_routes from gateway.json (or make it a list of routes)",
                               ("profile_routes",))


def _check_exclude(policy: Any, where: tuple[str, ...], in_json: bool) -> None:
    exclude = policy.get("notify_exclude_platforms") if isinstance(policy, dict) else None
    if exclude is None or _iterable(exclude):
        return
    message = f"'{type(exclude).__name__}' object is not iterable"
    if not in_json:  # config.yaml's session_reset (or gateway.session_reset)
        raise LoaderCrash(f"config.yaml's session_reset.notify_exclude_platforms is {_shown(exclude)}, not a list: "
                          f"TypeError: {message}",
                          "make session_reset.notify_exclude_platforms in config.yaml a list of platform names")
    dotted = ".".join(where + ("notify_exclude_platforms",))
    raise GatewayJsonCrash(f"gateway.json's {dotted} is {_shown(exclude)}, not a list: TypeError: {message}",
                           f"remove {dotted} from gateway.json (or make it a list of platform names)",
                           where + ("notify_exclude_platforms",))


def _iterable(value: Any) -> bool:
    """What `tuple(value)` / a for loop accept."""
    try:
        iter(value)
    except TypeError:
        return False
    return True


def _shown(value: Any) -> str:
    """A JSON-ish spelling of a scalar (null, true, 5); the type's name for anything else."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)[:20]
    return f"a {type(value).__name__}"
