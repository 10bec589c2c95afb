"""Installed Hermes services, found by reading files only (no systemctl, no launchctl).

`detect()` lists every gateway service on this machine:

  systemd user    ~/.config/systemd/user/hermes-gateway*.service   (+ <unit>.d/*.conf drop-ins)
  systemd system  /etc/systemd/system/hermes-gateway*.service      (+ drop-ins)
  launchd         ~/Library/LaunchAgents/ai.hermes.gateway*.plist
  s6              /run/service/gateway-*/                           (containers)

and `load(path)` reads one named explicitly (`--unit PATH`).  Units and drop-ins are read
as systemd reads them, links followed, but never for root what the user owning the unit's
folder could not read (common.read_text): a user's unit linked to a root-only file "cannot
be read", and such a drop-in is skipped.  Each becomes a `Unit`
saying which home it runs (Environment=HERMES_HOME and `--profile`/`-p`, resolved as
Hermes's `_apply_profile_override` does), its effective Restart=, Type= (Hermes renders
`Type=notify` with a watchdog from 0.20.1 on), RestartSec= and exit status lists — what
decides whether a refusal is restarted (restart_rules) — and which of our drop-ins it carries.

System paths are read under `root` (default `$HERMES_WIZARD_ROOT`, else `/`) and user
paths under `user_home` (default `Path.home()`), so tests point both at a temp dir.
Contract: never raises for file content; an unreadable unit is a Unit with `error`.
This module is on the `check` path: it imports nothing heavier than `os`, `re` and `shlex`.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

from hermes_wizard.core.frozenmap import FrozenMap
from hermes_wizard.service import restart_rules, supervisors
from hermes_wizard.service.common import (  # noqa: F401
    FALLBACK_DROPIN,
    GATE_DROPIN,
    MAX_UNIT_BYTES,
    UNIT_PREFIX,
    Gate,
    Unit,
    _listdir,
    read_text,
)
from hermes_wizard.service.homes import account_home, hermes_home_for, profile_arg

STATUS_LISTS = ("RestartPreventExitStatus", "RestartForceExitStatus", "SuccessExitStatus")  # list settings


def system_root(root: Path | str | None = None) -> Path:
    return Path(root if root is not None else os.environ.get("HERMES_WIZARD_ROOT") or "/")


def detect(root: Path | str | None = None, user_home: Path | None = None) -> list[Unit]:
    """Every Hermes gateway service installed here, user units first."""
    root, user_home = system_root(root), user_home or Path.home()
    found = []
    for scope, folder in (("user", user_home / ".config" / "systemd" / "user"),
                          ("system", root / "etc" / "systemd" / "system")):
        for name in _listdir(folder):
            if name.startswith(UNIT_PREFIX) and name.endswith(".service"):
                found.append(read_systemd(folder / name, scope, root, user_home))
    found.extend(supervisors.detect(root, user_home))
    return found


def load(path: Path, root: Path | str | None = None, user_home: Path | None = None) -> Unit:
    """One service named by the user (`--unit PATH`): a .service, a .plist, or an s6 dir."""
    root, user_home = system_root(root), user_home or Path.home()
    path = Path(path).expanduser().absolute()
    if path.suffix == ".plist" or path.is_dir() or path.name == "run":
        return supervisors.load(path, root, user_home)
    where = (path.parent.parent.name, path.parent.name)
    scope = {("systemd", "system"): "system", ("systemd", "user"): "user"}.get(where)
    unit = read_systemd(path, scope or "user", root, user_home)
    if scope is None and unit.user:  # a copy elsewhere: only system units may say User=
        unit = read_systemd(path, "system", root, user_home)
    return unit


def parse_ini(text: str) -> list[tuple[str, str, str]]:
    """systemd's unit syntax as (section, key, value) in file order: `#`/`;` comments,
    a trailing backslash continues the line."""
    out, section, pending = [], "", ""
    for raw in text.splitlines():
        line = (pending + " " + raw.strip()) if pending else raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif "=" in line:
            key, value = line.split("=", 1)
            out.append((section, key.strip(), value.strip()))
    return out


def _dropins(unit_path: Path, scope: str, root: Path, user_home: Path) -> list[Path]:
    """The unit's drop-ins, sorted by file name as systemd applies them; a name found in a
    higher-priority directory hides the same name further down."""
    dirs = [unit_path.parent / f"{unit_path.name}.d"]
    extra = ([user_home / ".config" / "systemd" / "user", root / "etc" / "systemd" / "user"] if scope == "user"
             else [root / "etc" / "systemd" / "system", root / "run" / "systemd" / "system"])
    dirs += [d / f"{unit_path.name}.d" for d in extra if d / f"{unit_path.name}.d" not in dirs]
    chosen: dict[str, Path] = {}
    for folder in dirs:
        for name in _listdir(folder):
            if name.endswith(".conf") and name not in chosen:
                chosen[name] = folder / name
    return [chosen[name] for name in sorted(chosen)]


def read_systemd(path: Path, scope: str, root: Path | None = None, user_home: Path | None = None,
                 planned: dict[str, str | None] | None = None) -> Unit:
    """The unit as systemd reads it; `planned` ({drop-in file name: text, or None for removed}) reads it as
    it will be once a plan's drop-ins are written in its own drop-in folder (a review's preview)."""
    root, user_home = system_root(root), user_home or Path.home()
    reader = _user_of(scope, user_home)
    text, error = read_text(path, reader)
    if text is None:
        return Unit(path, "systemd", scope, path.name, error=error)
    bare = Unit(path, "systemd", scope, path.name)  # what the drop-in folder and the specifiers are named from
    dropins = _dropins(path, scope, root, user_home)
    if planned:
        own = bare.dropin_dir
        kept = {p.name: p for p in dropins if p.name not in planned}
        kept |= {name: own / name for name, body in planned.items() if body is not None}
        dropins = [kept[name] for name in sorted(kept)]
    entries = [e for e in parse_ini(text) if e[0] == "Service"]
    gate, fallback = None, None
    for dropin in dropins:
        if planned and dropin.name in planned and dropin.parent == bare.dropin_dir:
            body = planned[dropin.name]
        else:
            body, _ = read_text(dropin, reader)  # unreadable: skipped, as the user's systemd would
        if body is None:
            continue
        found = [e for e in parse_ini(body) if e[0] == "Service"]
        entries += found
        if dropin.name == GATE_DROPIN:
            gate = _gate_info(dropin, [v for _, k, v in found if k == "ExecCondition"])
        elif dropin.name == FALLBACK_DROPIN:
            fallback = dropin
    env: dict[str, str] = {}
    argv: list[str] = []
    user = None
    single = {"Restart": "no", "Type": "simple", "WatchdogSec": "", "RestartSec": ""}
    lists: dict[str, list[str]] = {key: [] for key in STATUS_LISTS}
    for _, key, value in entries:  # systemd semantics: later wins; an empty list assignment resets
        if key in single:
            single[key] = value
        elif key in lists:
            lists[key] = lists[key] + value.split() if value else []
        elif key == "Environment":
            env = {**env, **_assignments(value, _specifiers(bare, scope, user_home))} if value else {}
        elif key == "ExecStart":
            argv = _words(value) if value else []
        elif key == "User":
            user = value or None
    read = {"dropins": tuple(dropins), "gate": gate, "fallback": fallback, "user": user,
            "environment": FrozenMap(env), **_restart_settings(single, lists)}
    if not argv:  # no command: whatever this is, it does not run a gateway for any home
        return Unit(path, "systemd", scope, path.name, error=error, **read)
    profile = profile_arg(argv)
    owner_home = env.get("HOME") or (account_home(user, root) if scope == "system" else str(user_home))
    return Unit(path, "systemd", scope, path.name, hermes_home_for(env.get("HERMES_HOME"), profile, Path(owner_home)),
                profile, python=argv[0].lstrip("-@:+!"), error=error, **read)


def _restart_settings(single: dict[str, str], lists: dict[str, list[str]]) -> dict[str, Any]:
    """The settings that decide whether a refusal is restarted (restart_rules), as the drop-ins left them;
    an empty `Type=`/`Restart=` is systemd's default again."""
    watchdog = single["WatchdogSec"]
    prevent, force, success = (restart_rules.exit_statuses(lists[key]) for key in STATUS_LISTS)
    return {"restart": single["Restart"] or "no", "service_type": single["Type"] or "simple",
            "watchdog": watchdog if watchdog and restart_rules.seconds(watchdog) != 0 else None,
            "restart_sec": restart_rules.seconds(single["RestartSec"]), "prevent_statuses": prevent,
            "force_statuses": force, "success_statuses": success, "prevents_78": 78 in prevent}


def _user_of(scope: str, user_home: Path) -> int | None:
    """Whose rights bound what is read for a unit (common.read_text): a user unit's home owner when that
    is not root, else (None) the owner of each file's own folder, taken from its opened descriptor."""
    if scope != "user":
        return None
    try:
        return os.stat(user_home).st_uid or None
    except OSError:
        return None


def _gate_info(path: Path, conditions: list[str]) -> Gate:
    for value in conditions:
        if "--gate" in value:
            wizard = re.search(r'w="([^"]*)"', value)
            home = re.search(r'--home "([^"]*)"', value)
            return Gate(path, wizard.group(1) if wizard else None, home.group(1) if home else None)
    return Gate(path, None, None)


def _words(value: str) -> list[str]:
    try:
        return shlex.split(value.replace("$$", "$"))
    except ValueError:
        return value.split()


def _specifiers(unit: Unit, scope: str, user_home: Path) -> dict[str, str]:
    """The specifiers a HERMES_HOME is likely to use (systemd.unit(5)); %h is /root for the
    system manager, the user's home for a user manager."""
    name = unit.name.removesuffix(".service")
    prefix, _, instance = name.partition("@")
    return {"%": "%", "h": "/root" if scope == "system" else str(user_home), "n": unit.name, "N": name,
            "p": prefix, "i": instance, "I": instance}


_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "s": " ",
              "\\": "\\", '"': '"', "'": "'"}


def _assignments(value: str, specifiers: dict[str, str]) -> dict[str, str]:
    """Environment= as systemd reads it (systemd.exec(5), systemd.syntax(7)): words split on
    whitespace, quotes removed, C escapes (\\n, \\x41, \\101, \\u00e9) decoded inside and outside
    quotes, then specifiers (%% → %, %h, ...) expanded.  `$$` is not special here.  A word
    with a bad escape or an unknown specifier is dropped, as systemd ignores the assignment."""
    out: dict[str, str] = {}
    for word in _systemd_words(value):
        if word is None:
            return out  # systemd rejects the rest of the line
        expanded = _expand_specifiers(word, specifiers)
        if expanded is not None and "=" in expanded:
            key, _, val = expanded.partition("=")
            out[key] = val
    return out


def _systemd_words(value: str) -> list[str | None]:
    words: list[str | None] = []
    word: list[str] = []
    quote: str | None = None
    at, started = 0, False
    while at < len(value):
        ch = value[at]
        if ch == "\\":
            decoded, at = _c_unescape(value, at + 1)
            if decoded is None:
                return words + [None]
            word.append(decoded)
            started = True
            continue
        if quote:
            if ch == quote:
                quote = None
            else:
                word.append(ch)
        elif ch in "'\"":
            quote, started = ch, True
        elif ch.isspace():
            if started:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(ch)
            started = True
        at += 1
    if quote:
        return words + [None]  # an unterminated quote: systemd rejects it
    if started:
        words.append("".join(word))
    return words


def _c_unescape(value: str, at: int) -> tuple[str | None, int]:
    """One C escape starting after its backslash: (text, next index), or (None, _) when invalid."""
    ch = value[at:at + 1]
    if ch in _C_ESCAPES:
        return _C_ESCAPES[ch], at + 1
    for lead, digits, base in (("x", 2, 16), ("u", 4, 16), ("U", 8, 16)):
        if ch == lead:
            code = value[at + 1:at + 1 + digits]
            if len(code) == digits and all(c in "0123456789abcdefABCDEF" for c in code) and int(code, base) > 0:
                try:
                    return chr(int(code, base)), at + 1 + digits
                except ValueError:
                    return None, at
            return None, at
    code = value[at:at + 3]
    if len(code) == 3 and all(c in "01234567" for c in code) and 0 < int(code, 8) < 256:
        return chr(int(code, 8)), at + 3
    return None, at


def _expand_specifiers(word: str, specifiers: dict[str, str]) -> str | None:
    out, at = [], 0
    while at < len(word):
        if word[at] == "%":
            value = specifiers.get(word[at + 1:at + 2])
            if value is None:  # unknown (or unsupported here): systemd refuses the assignment
                return None
            out.append(value)
            at += 2
        else:
            out.append(word[at])
            at += 1
    return "".join(out)
