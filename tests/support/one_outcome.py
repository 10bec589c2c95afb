"""The same generated sessions for every face (ARCHITECTURE.md, "Contracts": "one outcome sentence"), and the one rule
they are held to.

A session is a choice per platform of the demo home (telegram, weixin, whatsapp): untouched, or one of the
access modes; on the empty home a chosen platform also gets its credentials typed.  `sessions(home_kind)`
draws at least 40 distinct combinations per home, always the same ones (a fixed seed).

`held_to_check(out, home)` is the rule: the face's last verdict line ("Verified: …" or "Verdict: …") is the
line `check` prints for the files on disk, "Verified" exactly when `check` exits 0, and the face's
"After these changes: …" line said the same before the files were written.  Lines are compared with their
whitespace collapsed (the plain face wraps paragraphs to the terminal).
"""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

from hermes_wizard.core.bundled import example_home
from hermes_wizard.faces.cli import main

PLATFORMS = ("telegram", "weixin", "whatsapp")
MODES = (None, "pairing", "allowlist", "open", "disabled")
IDS = {"telegram": "123456789", "weixin": "o9cq80abc@im.wechat", "whatsapp": "15551234567"}
# typed on the empty home, where nothing is set yet (the demo home keeps its own)
CREDENTIALS = {"telegram": {"TELEGRAM_BOT_TOKEN": "7000000001:AAHoneOutcomeTestTokenAbcdefgh12345"},
               "weixin": {"WEIXIN_ACCOUNT_ID": "a1b2c3d4e5f6@im.bot",
                          "WEIXIN_TOKEN": "one-outcome-ilink-token-00000000"},
               "whatsapp": {}}
PER_HOME = 40


def sessions(kind: str) -> list[dict[str, str]]:
    """At least PER_HOME distinct choice combinations (platform → mode), none of them empty."""
    combos = [dict(zip(PLATFORMS, modes)) for modes in itertools.product(MODES, repeat=len(PLATFORMS))]
    combos = [{name: mode for name, mode in combo.items() if mode} for combo in combos]
    combos = [combo for combo in combos if combo]
    picked = random.Random(f"issue-20-{kind}").sample(combos, PER_HOME)
    return sorted(picked, key=lambda combo: sorted(combo.items()))


def make_home(kind: str, where: Path) -> Path:
    home = where / "home"
    if kind == "demo":
        shutil.copytree(example_home(), home)
        (home / ".env").chmod(0o600)
    else:
        home.mkdir(parents=True)
    return home


def typed(kind: str, name: str) -> dict[str, str]:
    return CREDENTIALS[name] if kind == "empty" else {}


def check_line(capsys, home: Path) -> tuple[int, str]:
    """`check`'s exit code and its verdict line for `home` as it is on disk."""
    capsys.readouterr()
    code = main(["check", "--home", str(home)])
    out = capsys.readouterr().out
    line = next(line for line in reversed(out.splitlines()) if line.startswith("Verdict: "))
    return code, line


def _unnamed(text: str, home: Path) -> str:
    """`text` with `home` no longer named on its commands: whether a command names the home depends on where it
    is printed (wizard/judge/commands.py; in Hermes's plugin HERMES_HOME is the home), and check's line on a copy
    names the copy; tests/unit/test_printed_commands.py runs the commands, the words are compared here."""
    return text.replace(f" --home {home}", "")


def _flat(text: str) -> str:
    return " ".join(text.replace("hermes wizard ", "hermes-wizard ").split())


def held_to_check(capsys, out: str, home: Path, label: str) -> int:
    """Assert the rule (see the module doc) on a face's output after it wrote `home`; check's exit code."""
    code, line = check_line(capsys, home)
    flat, body = _unnamed(_flat(out), home), _unnamed(_flat(line.removeprefix("Verdict: ")), home)
    last = max(flat.rfind("Verified: "), flat.rfind("Verdict: "))
    assert last >= 0, f"{label}: no outcome line in\n{out}"
    expected = ("Verified: " if code == 0 else "Verdict: ") + body
    assert flat[last:].startswith(expected), f"{label}: the face said\n  {flat[last:last + 240]}\ncheck says\n  " \
                                             f"{line} (exit {code})\n{out}"
    assert ("Verified" in flat) == (code == 0), f"{label}: 'Verified' said where check exits {code}\n{out}"
    before = flat.rfind("After these changes: ")
    if before >= 0:
        assert flat[before:].startswith("After these changes: " + body), \
            f"{label}: the preview said\n  {flat[before:before + 240]}\ncheck on the written files:\n  {line}"
    return code


def refused_to_write(capsys, out: str, home: Path, planned: Path, label: str) -> None:
    """A plan Hermes would refuse: nothing written, and the preview was `check`'s line on the planned files."""
    code, line = check_line(capsys, planned)
    assert code == 78, f"{label}: refused by the face, but check on the planned files exits {code}"
    flat = _unnamed(_flat(out), home)
    assert "Verified" not in flat, f"{label}: {out}"
    body = _unnamed(_flat(line.removeprefix("Verdict: ")), planned)  # check's line on the copy names the copy
    assert "After these changes: " + body in flat, f"{label}: {out}\n{line}"


def write_planned(home: Path, plan, where: Path) -> Path:
    """A copy of `home` with the plan's files written (what check would judge after apply)."""
    from hermes_wizard.plan.changes import planned_contents

    copy = where / "planned"
    shutil.copytree(home, copy)
    for name, data in planned_contents(plan).items():
        (copy / name).write_bytes(data)
    return copy


def answers_yaml(kind: str, session: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The session as an answers file, and the environment its secrets are read from."""
    from hermes_wizard.judge.masking import is_secret_name

    lines, env = ["platforms:"], {}
    for name, mode in session.items():
        lines.append(f"  {name}:")
        if mode == "disabled":
            lines.append("    enabled: false")
            continue
        values = typed(kind, name)
        if values:
            lines.append("    env:")
            for key, value in values.items():
                if is_secret_name(key):
                    env[f"OUTCOME_{key}"] = value
                    lines.append(f"      {key}: {{from_env: OUTCOME_{key}}}")
                else:
                    lines.append(f"      {key}: \"{value}\"")
        lines.append(f"    dm_policy: {mode}")
        if mode == "allowlist":
            lines.append(f"    allowed_users: [\"{IDS[name]}\"]")
        if mode == "open":
            lines.append("    allow_all: true")
    return "\n".join(lines) + "\n", env


def flags_for(kind: str, session: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """The session as `setup` flags: each --platform with its own flags after it, --disable for the others."""
    from hermes_wizard.judge.masking import is_secret_name

    configured = [name for name, mode in session.items() if mode != "disabled"]
    argv, env = [], {}
    for name in session:
        if session[name] == "disabled":
            argv += ["--disable", name]
    for name in configured:
        mode = session[name]
        argv += ["--platform", name, "--policy", mode]
        for key, value in typed(kind, name).items():
            if is_secret_name(key):
                env[f"OUTCOME_{key}"] = value
                argv += ["--env-from-env", f"{key}=OUTCOME_{key}"]
            else:
                argv += ["--env", f"{key}={value}"]
        if mode == "allowlist":
            argv += ["--allow", IDS[name]]
        if mode == "open":
            argv += ["--i-understand-open", name]
    return argv, env



def as_typed(kind: str, session: dict[str, str], home: Path):
    """A Session answered as the interactive faces answer it (credentials typed, the mode chosen, the IDs of an
    allowlist, none with pairing, the name typed for open): its plan is what the plain face and the TUI write."""
    from hermes_wizard.judge.engine import evaluate
    from hermes_wizard.plan.session import Session

    live = Session(evaluate(home, "default"), "setup")
    for name, mode in session.items():
        for key, value in typed(kind, name).items():
            live.type_value(name, key, value)
        live.set_access(name, mode, [IDS[name]] if mode == "allowlist" else [], name if mode == "open" else "")
    return live
