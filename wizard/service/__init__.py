"""The service manager side of a Hermes home: which service runs it, is it looping, the gate.

  units        systemd unit files + drop-ins → `Unit` (home, profile, Restart=, our drop-ins)
  homes        which home a service runs (HERMES_HOME + --profile, as Hermes resolves them)
  supervisors  launchd plists and s6 service dirs → `Unit`, and the advice for them
  systemd      `Runner.run(argv)`: the one place systemctl/journalctl run (`dry_run` prints)
  loop         loop evidence (NRestarts, journal, gateway-starts.log, gateway_state.json)
  dropin       the gate drop-in (ExecCondition=) and the Restart=on-failure fallback
  actions      stop / daemon-reload / restart / verify
  flow         the service steps of `doctor`

  scope        the per-process scope (below)

`scope` is the per-process scope the CLI sets for the checks (wizard/judge/checks/service.py),
whose Context has no room for it: the unit the user named (`--unit PATH`) and a Runner
when checks may ask systemd (`check --service`, `doctor`).  Unconfigured — plain `check`,
the TUI — checks read unit files and nothing else.  Detection is cached per process.
"""
