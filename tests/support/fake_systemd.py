"""Fake `systemctl` / `journalctl` for the service tests, replaying systemd 252's formats.

`FakeSystemd(tmp_path)` writes both executables into `tmp_path/bin` (put it first on PATH).
Each call appends its argv to a JSON-lines log (`calls()`), then answers from a scenario
kept in a JSON state file, in phases:

  "loop"       before anything: the unit is between two turns of a refusal loop
  "stopped"    after `stop`
  "restarted"  after `restart` / `start`

With `watch` (paths), each log entry also keeps what those files held at that moment.
`systemctl show -p ...` prints `Key=value` lines (only the asked keys; with `climb`, NRestarts
grows by one per call, as in a loop; with `then`, a list of property sets, each call first takes the
next one, as a start under way does); `systemctl --version` prints systemd 252's two lines;
`journalctl -o cat` prints bare messages: the whole journal, or with `--since`, only the
lines of the current phase.  `fail` maps a verb to (rc, stderr).

Also here: the unit templates of hermes-cli.md §3.2 (verbatim but for the paths).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

VERSION_252 = ("systemd 252 (252.38-1~deb12u1)\n+PAM +AUDIT +SELINUX +APPARMOR +IMA +SMACK +SECCOMP +GCRYPT -GNUTLS "
               "+OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN +IPTC +KMOD +LIBCRYPTSETUP +LIBFDISK +PCRE2 "
               "-PWQUALITY +P11KIT +QRENCODE +TPM2 +BZIP2 +LZ4 +XZ +ZLIB +ZSTD -BPF_FRAMEWORK -XKBCOMMON +UTMP "
               "+SYSVINIT default-hierarchy=unified\n")
DESCRIPTION = "Hermes Agent Gateway - Messaging Platform Integration"


def loop_journal(unit: str, platform: str, counter: int) -> list[str]:
    """One turn of the refusal loop as `journalctl -o cat` shows it (Hermes 0.19 + systemd 252)."""
    env = platform.upper()
    return [f"Started {unit} - {DESCRIPTION}.",
            "WARNING gateway.run: No env user allowlists configured. Messaging platforms default to pairing/"
            "allowlist policies and will deny unknown senders unless you configure platform allowlists (e.g., "
            "TELEGRAM_ALLOWED_USERS=your_id) or explicitly opt in with GATEWAY_ALLOW_ALL_USERS=true plus "
            "dm_policy/group_policy: open on the platform.",
            f"ERROR gateway.run: Refusing to start: {platform} has dm_policy/group_policy set to 'open' but neither "
            f"GATEWAY_ALLOW_ALL_USERS nor {env}_ALLOW_ALL_USERS is enabled.",
            f"ERROR gateway.run: Gateway exiting cleanly: {platform}: open policy without allow-all opt-in",
            f"{unit}: Deactivated successfully.",
            f"{unit}: Consumed 1.183s CPU time.",
            f"{unit}: Scheduled restart job, restart counter is at {counter}.",
            f"Stopped {unit} - {DESCRIPTION}."]


def notify_loop_journal(unit: str, platform: str, counter: int, stamp: str = "2026-12-03 10:58:34") -> list[str]:
    """One turn of the refusal loop under Type=notify as `journalctl -o cat` shows it (the real Hermes 0.20.1
    under systemd 252, measured: its log lines carry a timestamp; no "Started", the start fails)."""
    env = platform.upper()
    return [f"Starting {unit} - {DESCRIPTION}...",
            f"{stamp},174 ERROR gateway.run: Refusing to start: {platform} has dm_policy/group_policy set to 'open' "
            f"but neither GATEWAY_ALLOW_ALL_USERS nor {env}_ALLOW_ALL_USERS is enabled.",
            f"{stamp},185 ERROR gateway.run: Gateway exiting cleanly: {platform}: open policy without allow-all "
            "opt-in",
            f"{unit}: Failed with result 'protocol'.",
            f"Failed to start {unit} - {DESCRIPTION}.",
            f"{unit}: Consumed 1.657s CPU time.",
            f"{unit}: Scheduled restart job, restart counter is at {counter}.",
            f"Stopped {unit} - {DESCRIPTION}."]


LOOPING = {"Result": "success", "NRestarts": "1705", "ExecMainCode": "1", "ExecMainStatus": "0",
           "ActiveState": "activating", "SubState": "auto-restart"}
# Type=notify, between two turns (measured: the refusal fails the start; Result resets to success while one runs)
LOOPING_NOTIFY = {"Result": "protocol", "NRestarts": "1705", "ExecMainCode": "1", "ExecMainStatus": "0",
                  "ActiveState": "activating", "SubState": "auto-restart"}
STARTING_NOTIFY = {"Result": "success", "NRestarts": "0", "ExecMainCode": "0", "ExecMainStatus": "0",
                   "ActiveState": "activating", "SubState": "start"}  # waiting for READY=1 (~9 s for 0.20.1)
RUNNING = {"Result": "success", "NRestarts": "0", "ExecMainCode": "0", "ExecMainStatus": "0",
           "ActiveState": "active", "SubState": "running"}
STOPPED = {"Result": "success", "NRestarts": "0", "ExecMainCode": "1", "ExecMainStatus": "0",
           "ActiveState": "inactive", "SubState": "dead"}

SCRIPT = r'''#!{python}
import json, os, sys
state_path, log_path = os.environ["FAKE_SYSTEMD_STATE"], os.environ["FAKE_SYSTEMD_LOG"]
tool, args = os.path.basename(sys.argv[0]), sys.argv[1:]
with open(state_path) as f:
    state = json.load(f)
seen = {{}}
for path in state.get("watch", []):  # what a watched file held when this command ran
    try:
        seen[path] = open(path).read()
    except OSError:
        seen[path] = None
with open(log_path, "a") as log:
    log.write(json.dumps({{"argv": [tool] + args, "seen": seen}}) + "\n")
words = [a for a in args if not a.startswith("-")]
verb = words[0] if tool == "systemctl" and words else tool
if "--version" in args:
    sys.stdout.write(state["version"]); sys.exit(0)
if verb in state.get("fail", {{}}):
    rc, err = state["fail"][verb]
    sys.stderr.write(err + "\n"); sys.exit(rc)
phase = state["phase"]
if verb == "stop":
    state["phase"] = "stopped"
elif verb in ("restart", "start"):
    state["phase"] = "restarted"
elif verb == "show":
    props = state["phases"][phase]["show"]
    if state["phases"][phase].get("then"):
        props.update(state["phases"][phase]["then"].pop(0))
    asked = args[args.index("-p") + 1].split(",")
    if state["phases"][phase].get("climb"):
        props["NRestarts"] = str(int(props["NRestarts"]) + 1)
        props["ActiveState"], props["SubState"] = "activating", "auto-restart"
    for key in props:
        if key in asked:
            print(f"{{key}}={{props[key]}}")
elif tool == "journalctl":
    if "--since" in args:
        lines = state["phases"][phase].get("journal", [])
    else:
        lines = [l for p in ("loop", "stopped", "restarted") for l in state["phases"].get(p, {{}}).get("journal", [])
                 if p == "loop" or state["reached"].get(p)]
    n = int(args[args.index("-n") + 1]) if "-n" in args else len(lines)
    print("\n".join(lines[-n:]) if lines else "-- No entries --")
state["reached"][state["phase"]] = True
with open(state_path, "w") as f:
    json.dump(state, f)
'''


class FakeSystemd:
    def __init__(self, tmp: Path, unit: str = "hermes-gateway.service", platform: str = "weixin") -> None:
        self.bin = tmp / "fakebin"
        self.bin.mkdir(parents=True, exist_ok=True)
        self.state_path, self.log_path = tmp / "fake-state.json", tmp / "fake-calls.jsonl"
        self.log_path.write_text("")
        for tool in ("systemctl", "journalctl"):
            path = self.bin / tool
            path.write_text(SCRIPT.format(python=sys.executable))
            path.chmod(0o755)
        self.state = {"version": VERSION_252, "phase": "loop", "reached": {}, "fail": {},
                      "phases": {"loop": {"show": dict(LOOPING), "journal": loop_journal(unit, platform, 1704)
                                          + loop_journal(unit, platform, 1705)},
                                 "stopped": {"show": dict(STOPPED), "journal": [f"Stopped {unit} - {DESCRIPTION}."]},
                                 "restarted": {"show": dict(RUNNING), "journal": [
                                     f"Started {unit} - {DESCRIPTION}.",
                                     "INFO gateway.run: telegram connected"]}}}
        self.save()

    def save(self) -> None:
        self.state_path.write_text(json.dumps(self.state))

    def env(self, base: dict | None = None) -> dict[str, str]:
        env = dict(os.environ if base is None else base)
        env.update(PATH=f"{self.bin}:{env.get('PATH', '/usr/bin:/bin')}", FAKE_SYSTEMD_STATE=str(self.state_path),
                   FAKE_SYSTEMD_LOG=str(self.log_path))
        return env

    def install(self, monkeypatch) -> FakeSystemd:
        for key, value in self.env().items():
            if os.environ.get(key) != value:
                monkeypatch.setenv(key, value)
        return self

    def entries(self) -> list[dict]:
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line.strip()]

    def calls(self) -> list[list[str]]:
        return [entry["argv"] for entry in self.entries()]


def user_unit(python: str, home: Path | str, profile: str | None = None) -> str:
    """Hermes's user-scope template (hermes_cli/gateway.py:2853-2880) as rendered."""
    venv = str(Path(python).parent.parent)
    profile_arg = f" --profile {profile}" if profile else ""
    return f"""[Unit]
Description={DESCRIPTION}
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
ExecStart={python} -m hermes_cli.main{profile_arg} gateway run
WorkingDirectory={home}
Environment="PATH={venv}/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
Environment="VIRTUAL_ENV={venv}"
Environment="HERMES_HOME={home}"
Restart=always
RestartSec=5
RestartForceExitStatus=75
RestartPreventExitStatus=78
KillMode=mixed
KillSignal=SIGTERM
ExecReload=/bin/kill -USR1 $MAINPID
ExecStopPost=-{python} -m gateway.cgroup_cleanup
TimeoutStopSec=60
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=default.target
"""


def system_unit(python: str, home: Path | str, user: str = "hermes", account_home: str = "/home/hermes") -> str:
    """Hermes's system-scope template (hermes_cli/gateway.py:2810-2842) as rendered."""
    venv = str(Path(python).parent.parent)
    return f"""[Unit]
Description={DESCRIPTION}
After=network-online.target
Wants=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
User={user}
Group={user}
ExecStart={python} -m hermes_cli.main gateway run
WorkingDirectory={home}
Environment="HOME={account_home}"
Environment="USER={user}"
Environment="LOGNAME={user}"
Environment="PATH={venv}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
Environment="VIRTUAL_ENV={venv}"
Environment="HERMES_HOME={home}"
Restart=always
RestartSec=5
RestartForceExitStatus=75
RestartPreventExitStatus=78
KillMode=mixed
KillSignal=SIGTERM
ExecReload=/bin/kill -USR1 $MAINPID
ExecStopPost=-{python} -m gateway.cgroup_cleanup
TimeoutStopSec=60
StandardOutput=journal
StandardError=journal

[Install]
WantedBy=multi-user.target
"""
