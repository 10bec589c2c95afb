# shellcheck shell=bash
# Sourced by test.sh and demo.sh: make <repo>/.venv (python3) with this package installed editable.
# A stamp keyed on pyproject.toml and setup.py skips the pip run when nothing changed (set HW_REINSTALL=1 to force).

hw_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
hw_venv="$hw_repo/.venv"

# ensure_venv [EXTRAS]   e.g. ensure_venv test  ->  pip install -e '.[test]'
ensure_venv() {
    local extras="${1:-}" spec="." sum stamp
    [ -n "$extras" ] && spec=".[$extras]"
    if [ ! -x "$hw_venv/bin/python" ]; then
        echo "venv: creating $hw_venv" >&2
        python3 -m venv "$hw_venv"
    fi
    sum="$(cat "$hw_repo/pyproject.toml" "$hw_repo/setup.py" | sha256sum | cut -c1-16)"
    stamp="$hw_venv/.hw-installed-${extras:-base}-$sum"
    # A test install is a superset of the base install.
    if [ -z "${HW_REINSTALL:-}" ] && { [ -e "$stamp" ] || [ -e "$hw_venv/.hw-installed-test-$sum" ]; } \
        && "$hw_venv/bin/python" -c "import hermes_wizard" 2>/dev/null; then
        echo "venv: hermes-wizard already installed in $hw_venv" >&2
        return 0
    fi
    echo "venv: pip install -e '$spec' into $hw_venv" >&2
    (cd "$hw_repo" && "$hw_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        -e "$spec" 2>&1 | { grep -v 'is ignored: it is neither a file nor' || true; } >&2)
    rm -f "$hw_venv"/.hw-installed-*
    touch "$stamp"
}
