#!/usr/bin/env bash
# Create (once, then reuse) the plugin venv: the real Hermes Agent 0.19.0 with THIS package installed into it the way
# a user does it (`pip install hermes-wizard` into Hermes's own venv, non-editable), plus keyrings.alt so the tests
# can point keyring at a throw-away file (PYTHON_KEYRING_BACKEND=keyrings.alt.file.PlaintextKeyring, XDG_DATA_HOME
# in a temp dir; never the machine's keyring).  tests/system/test_hermes_plugin.py runs `hermes wizard ...` and the
# gateway from it.
#   scripts/plugin-venv.sh        prints the venv path last.
# Location: $HERMES_PLUGIN_VENV, else <repo>/.cache/plugin-venv.
# Our package is reinstalled whenever wizard/, screens/, assets/, pyproject.toml or setup.py changed (a hash stamp), so the tests never
# run stale code; it is built from a copy of those files, so no build/ or *.egg-info lands in the worktree.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${HERMES_PLUGIN_VENV:-$repo/.cache/plugin-venv}"
version="0.19.0"
probe="import importlib.metadata as m; assert m.version('hermes-agent') == '$version'; import keyrings.alt"
pip_quiet() {
    # The grep drops a harmless pip-config warning seen on some machines; pipefail keeps pip's status.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1 \
        | { grep -v 'is ignored: it is neither a file nor' || true; } >&2
}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$probe" 2>/dev/null; then
    echo "plugin-venv: hermes-agent==$version already in $venv" >&2
else
    echo "plugin-venv: installing hermes-agent==$version, keyring and keyrings.alt into $venv (about 40 s)" >&2
    mkdir -p "$(dirname "$venv")"
    python3 -m venv --clear "$venv"
    pip_quiet "hermes-agent==$version" "keyring>=24" keyrings.alt
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
