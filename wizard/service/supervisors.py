"""launchd agents and s6 services: detection, parsing, and the advice we give for them.

Neither has an equivalent of the systemd gate: launchd's `KeepAlive` (Hermes writes it
`true`) restarts after any exit, 78 included, every `ThrottleInterval` (30 s); s6
restarts unless the `finish` script exits 125, which Hermes's does only for 78.  So the
0-exit open-policy refusal loops under both.  We do not drive launchctl or s6-svc: the
repair is the config fix, and `advice()` gives the exact commands to stop the loop
first and start once after (hermes-cli.md §3.3, §3.4).

Contract: file reads only.  plistlib (expat, datetime: ~1.3 ms) is imported lazily, only when a plist
exists: `check` loads this module on every run, and launchd plists are rare.
"""

from __future__ import annotations

import re
from pathlib import Path

from hermes_wizard.service.common import Unit, _listdir, read_config, read_text
from hermes_wizard.service.homes import hermes_home_for, profile_arg

LAUNCHD_PREFIX = "ai.hermes.gateway"
S6_PREFIX = "gateway-"


def detect(root: Path, user_home: Path) -> list[Unit]:
    found = []
    agents = user_home / "Library" / "LaunchAgents"
    for name in _listdir(agents):
        if name.startswith(LAUNCHD_PREFIX) and name.endswith(".plist"):
            found.append(read_plist(agents / name, user_home))
    scandir = root / "run" / "service"
    for name in _listdir(scandir):
        if name.startswith(S6_PREFIX) and (scandir / name).is_dir():
            found.append(read_s6(scandir / name, root))
    return found


def load(path: Path, root: Path, user_home: Path) -> Unit:
    if path.suffix == ".plist":
        return read_plist(path, user_home)
    return read_s6(path.parent if path.name == "run" else path, root)


def read_plist(path: Path, user_home: Path) -> Unit:
    raw, error = read_config(path)  # a user's LaunchAgents: never read for root what the user could not
    if raw is None:
        return Unit(path, "launchd", "agent", path.stem, restart="always", error=error)
    try:
        import plistlib  # lazily: see the module doc

        data = plistlib.loads(raw)
    except Exception as exc:  # plistlib raises several types for a damaged file
        return Unit(path, "launchd", "agent", path.stem, restart="always",
                    error=f"cannot be read as a plist ({type(exc).__name__})")
    if not isinstance(data, dict):
        return Unit(path, "launchd", "agent", path.stem, restart="always", error="is not a launchd property list")
    argv = [str(a) for a in data.get("ProgramArguments") or []]
    env = data.get("EnvironmentVariables") or {}
    profile = profile_arg(argv)
    return Unit(path, "launchd", "agent", str(data.get("Label") or path.stem),
                hermes_home_for(env.get("HERMES_HOME") if isinstance(env, dict) else None, profile, user_home),
                profile, "always" if data.get("KeepAlive") else "no", python=argv[0] if argv else None, error=error)


def read_s6(folder: Path, root: Path) -> Unit:
    text, error = read_text(folder / "run")
    if text is None:
        return Unit(folder, "s6", "container", folder.name, restart="always", error=error)
    finish, _ = read_text(folder / "finish")
    prevents_78 = bool(finish and re.search(r'"\$1"\s*=\s*"78"', finish) and "exit 125" in finish)
    exports = dict(re.findall(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=['\"]?([^'\"\n]*)", text, re.M))
    hermes_home = exports.get("HERMES_HOME")
    if hermes_home is None:  # with-contenv: the container's environment, one file per variable
        value, _ = read_text(root / "run" / "s6" / "container_environment" / "HERMES_HOME")
        hermes_home = value.strip() if value and value.strip() else None
    command = next((line for line in text.splitlines() if re.search(r"\bhermes\b.*\bgateway\b", line)), "")
    profile = profile_arg(command.split())
    return Unit(folder, "s6", "container", folder.name,
                hermes_home_for(hermes_home, profile, Path(exports.get("HOME") or "/opt/data")), profile, "always",
                prevents_78, python="hermes", error=error)


def advice(unit: Unit) -> list[str]:
    """The commands that stop a loop, and start once after the repair, for this supervisor."""
    if unit.manager == "launchd":
        target = f"gui/$(id -u)/{unit.name}"
        return [f"stop the loop: launchctl bootout {target}",
                "repair: hermes-wizard doctor --fix",
                f"start once: launchctl bootstrap gui/$(id -u) {unit.path}",
                "launchd has no RestartPreventExitStatus: KeepAlive restarts after every exit, so a refusal "
                "loops until the config is fixed"]
    if unit.manager == "s6":
        return [f"stop the loop: s6-svc -d {unit.path}",
                "repair: hermes-wizard doctor --fix",
                f"start once: s6-svc -u {unit.path}",
                "check: s6-svstat " + str(unit.path)]
    return []
