"""Where a value came from, in words a user can act on ("WEIXIN_DM_POLICY in .env:10").

Contract: pure lookups over a Snapshot; never returns a secret value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_wizard.hermes.loader.catalog import Spec, platform_value
from hermes_wizard.hermes.loader.inputs import Snapshot
from hermes_wizard.hermes.loader.yamlfile import lookup

if TYPE_CHECKING:
    from hermes_wizard.core.shapes import Parsed


def env_source(snapshot: Snapshot, key: str) -> str:
    if key in snapshot.managed_env.values:
        return f"{key} in {snapshot.managed_dir / '.env'}:{snapshot.managed_env.line_of(key)}"
    if key in snapshot.env.values:
        return f"{key} in .env:{snapshot.env.line_of(key)}"
    if key in snapshot.op_env.values:
        return f"{key} in .op.env:{snapshot.op_env.line_of(key)}"
    if key in snapshot.base_env:
        return f"{key} in the gateway's environment"
    return key


def yaml_paths(name: str, key: str, data: Parsed | None = None) -> list[tuple[str, ...]]:
    """Every YAML place a platform key can live, highest precedence first; with the
    document's `data`, also under odd spellings of the platform key that Hermes folds
    to `name` (`platforms: {WEIXIN: ...}`)."""
    paths = [(name, key), ("platforms", name, "extra", key), ("platforms", name, key),
             ("gateway", "platforms", name, "extra", key), ("gateway", "platforms", name, key)]
    for prefix in (("platforms",), ("gateway", "platforms")):
        node = lookup(data, prefix)
        for spelled in (node if isinstance(node, dict) else ()):
            if spelled != name and isinstance(spelled, str) and platform_value(spelled) == name:
                paths += [prefix + (spelled, "extra", key), prefix + (spelled, key)]
    return paths


def platform_blocks(data: Parsed, name: str) -> list[tuple[str, ...]]:
    """Every YAML block that configures `name` — the top-level one and any spelling under
    `platforms`/`gateway.platforms` that Hermes folds to it (the later one wins) — else
    `platforms.<name>`, where a new setting belongs."""
    blocks: list[tuple[str, ...]] = [(name,)] if isinstance(data.get(name), dict) else []
    for prefix in (("platforms",), ("gateway", "platforms")):
        node = lookup(data, prefix)
        for key, value in (node.items() if isinstance(node, dict) else ()):
            if isinstance(key, str) and isinstance(value, dict) and platform_value(key) == name:
                blocks.append(prefix + (key,))
    return blocks or [("platforms", name)]


def yaml_source(snapshot: Snapshot, path: tuple[str, ...]) -> str:
    line = snapshot.yaml.line_of(path)
    return f"config.yaml:{line} ({'.'.join(path)})" if line else f"config.yaml ({'.'.join(path)})"


def find_yaml(snapshot: Snapshot, name: str, key: str) -> tuple[str, ...] | None:
    data = snapshot.yaml.mapping()
    for path in yaml_paths(name, key):
        if lookup(data, path) is not None:
            return path
    return None


def policy_source(snapshot: Snapshot, spec: Spec, side: str, from_extra: bool) -> str:
    """Where the gate's dm/group policy for the platform `spec` (the judged model's) came from (`side` is
    "dm" or "group")."""
    name = spec.name
    env_name = getattr(spec.gate, f"{side}_env") if spec.gate else None
    key = f"{side}_policy"
    if env_name and (not from_extra or spec.policy_env_into_extra) and _env_has(snapshot, env_name):
        return env_source(snapshot, env_name)
    path = find_yaml(snapshot, name, key)
    if path is not None:
        return yaml_source(snapshot, path)
    return env_name or "the default"


def _env_has(snapshot: Snapshot, key: str) -> bool:
    return any(key in values for values in (snapshot.managed_env.values, snapshot.env.values,
                                            snapshot.op_env.values, snapshot.base_env))
