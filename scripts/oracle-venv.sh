#!/usr/bin/env bash
# Create (once, then reuse) an oracle venv: the real Hermes Agent VERSION from PyPI (default 0.19.0).
# Conformance tests and benchmarks run it as the reference for "would the gateway start?".
#   scripts/oracle-venv.sh [VERSION]     prints the venv path last.
# Location for 0.19.0: $HERMES_ORACLE_VENV, else <repo>/.cache/oracle-venv (unchanged);
# for another version, e.g. 0.18.2: $HERMES_ORACLE_VENV_0_18_2, else <repo>/.cache/oracle-venv-0.18.2.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${1:-0.19.0}"
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "oracle-venv: '$version' is not a release version like 0.18.2" >&2
    exit 2
fi
if [ "$version" = "0.19.0" ]; then
    venv="${HERMES_ORACLE_VENV:-$repo/.cache/oracle-venv}"
else
    var="HERMES_ORACLE_VENV_${version//./_}"
    venv="${!var:-$repo/.cache/oracle-venv-$version}"
fi
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
