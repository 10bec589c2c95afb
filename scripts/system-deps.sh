#!/usr/bin/env bash
# The machine's packages the tests use (Debian names), installed when missing:
#   tmux                          the real-terminal tests
#   systemd                       `systemd-analyze verify` of every drop-in; the private systemd the real-systemd
#                                 tests boot, driven with systemctl and journalctl
#   util-linux, iproute2          unshare, nsenter, mount, setpriv; ip (the private systemd's loopback)
#   gnome-keyring, dbus           a real Secret Service under dbus-run-session (the keyring tests)
#   openssh-server/-client        the ssh test's own sshd on a free port, and ssh, ssh-keygen
#   passwd                        useradd, for the tests that judge another user's home
# As root with apt-get: installs what is missing (where the machine's init starts services, installing
# openssh-server also starts its sshd).  Otherwise, or when the install fails: ONE line naming the missing
# packages, and exit 0 -- the tests that need them skip, and under CI=true those skips fail (tests/conftest.py).
# HW_NO_SYSTEM_DEPS=1: install nothing, only name what is missing.  Used by scripts/test.sh and .ci/run.
set -uo pipefail

# what to look for (a command on PATH, or an absolute path) and the package that provides it
wanted=(
    "tmux tmux"
    "systemd-analyze systemd" "systemctl systemd" "journalctl systemd" "/lib/systemd/systemd systemd"
    "unshare util-linux" "nsenter util-linux" "setpriv util-linux" "mount mount" "ip iproute2"
    "gnome-keyring-daemon gnome-keyring" "dbus-run-session dbus"
    "/usr/sbin/sshd openssh-server" "ssh openssh-client" "ssh-keygen openssh-client"
    "useradd passwd"
)

missing_packages() {
    local entry thing package found=()
    for entry in "${wanted[@]}"; do
        read -r thing package <<<"$entry"
        if [[ "$thing" == /* ]]; then [ -x "$thing" ] && continue; else command -v "$thing" >/dev/null 2>&1 && continue; fi
        [[ " ${found[*]} " == *" $package "* ]] || found+=("$package")
    done
    echo "${found[*]}"
}

apt_install() {
    # the lock timeout: another apt run on the machine (a second checkout's tests) finishes first
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "$@" </dev/null >/dev/null
}

missing="$(missing_packages)"
[ -z "$missing" ] && exit 0
# shellcheck disable=SC2086  # word splitting of the package list is meant
if [ "$EUID" -eq 0 ] && [ -z "${HW_NO_SYSTEM_DEPS:-}" ] && command -v apt-get >/dev/null 2>&1; then
    echo "system-deps: installing $missing (apt-get)" >&2
    if ! apt_install $missing 2>/dev/null; then
        apt-get -o DPkg::Lock::Timeout=300 update -qq </dev/null >/dev/null 2>&1
        apt_install $missing >&2
    fi
    missing="$(missing_packages)"
    [ -z "$missing" ] && exit 0
fi
echo "system-deps: missing $missing (as root: apt-get install $missing); the tests that need them will skip, and fail under CI=true" >&2
exit 0
