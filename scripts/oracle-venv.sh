#!/usr/bin/env bash
# Create (once, then reuse) the oracle venv: the real Hermes Agent 0.19.0 from PyPI.
# Conformance tests and benchmarks run it as the reference for "would the gateway start?".
# Location: $HERMES_ORACLE_VENV, else <repo>/.cache/oracle-venv. Prints the venv path last.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HERMES_ORACLE_VENV:-$repo/.cache/oracle-venv}"
version="0.19.0"
probe="import importlib.metadata as m; assert m.version('hermes-agent') == '$version'"

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "oracle-venv: hermes-agent==$version already in $venv" >&2
else
    echo "oracle-venv: installing hermes-agent==$version into $venv (about 25 s)" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv --clear "$venv"
    # The grep drops a harmless pip-config warning seen on some machines; pipefail keeps pip's status.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "hermes-agent==$version" 2>&1 | { grep -v 'is ignored: it is neither a file nor' || true; } >&2
    "$venv/bin/python" -c "$probe"
    echo "oracle-venv: done" >&2
fi
echo "$venv"
