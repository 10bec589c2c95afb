"""A private, real systemd for tests: PID 1 of new PID, mount and network namespaces.

The recipe and its hazard, in short: booted carelessly, systemd
runs `systemd-tmpfiles --boot --remove`, which empties the machine's real /tmp, and starts the
image's services (PostgreSQL) on the shared machine.  So, before systemd is exec'd, the boot script:

  * mounts fresh tmpfs on /run, /tmp, /var/tmp, /var/log/journal and /etc/systemd/system, so nothing
    systemd writes or cleans there reaches the machine (paths the test needs under them are bound
    back in from a descriptor opened before the tmpfs hid them);
  * masks, deny-by-default, every unit the image ships except journald's and the targets/slices
    (the reference's list is a subset): services, sockets, timers, paths, mounts, swaps and every
    SysV init script, so nothing but the test's own units can run;
  * boots an empty target (not multi-user.target), so only what a test starts is started;
  * logs to its own journald only (never the kernel log).

It is driven from outside with the ordinary `systemctl`/`journalctl` through `nsenter`, and stopped
by killing its own pid (killing a PID namespace's init ends every process in it), never by name.
Anything a unit or an `nsenter`-ed command must reach has to live outside /tmp — or be in `keep`.

The harness works from any checkout location: its own work folder (units, masks, the boot script)
must not be hidden by the private mounts, so `work_root()` puts it in the checkout's .cache only
when that is visible inside, else in the user's cache folder.  Kept paths under /tmp, /var/tmp or
/run are bound back without letting mount(8) canonicalize the source: canonicalizing resolves
/proc/self/fd/N to "/tmp", the new empty tmpfs, and binds an empty folder onto itself; the boot
script checks each kept path is the machine's own folder (same device and inode) or stops.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path

SYSTEMD = Path("/lib/systemd/systemd")
PRIVATE_MOUNTS = ("/run", "/tmp", "/var/tmp", "/var/log/journal", "/etc/systemd/system")
UNIT_DIRS = ("/lib/systemd/system", "/usr/lib/systemd/system", "/etc/systemd/system")
KEPT_UNITS = {"systemd-journald.service", "systemd-journald.socket", "systemd-journald-dev-log.socket",
              "systemd-journald-audit.socket", "systemd-journald@.service", "systemd-journald@.socket",
              "systemd-journald-varlink@.socket"}
MASKED_KINDS = (".service", ".socket", ".timer", ".path", ".mount", ".automount", ".swap")
TEST_TARGET = "hermes-wizard-test.target"


class Unavailable(Exception):
    """This machine cannot boot a private systemd (no unshare permission, no systemd): skip, never fail."""


def why_unavailable() -> str | None:
    """None when a private systemd can be booted here, else the reason (for pytest.skip)."""
    if os.geteuid() != 0:
        return "booting a private systemd needs root (unshare of mount and PID namespaces)"
    for tool in ("unshare", "nsenter", "systemctl", "journalctl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not SYSTEMD.is_file():
        return f"{SYSTEMD} is not installed"
    probe = subprocess.run(["unshare", "--mount", "--pid", "--fork", "--net", "--propagation", "private", "true"],
                           capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        return f"namespaces are not permitted here: {probe.stderr.strip() or probe.returncode}"
    return None


def hidden_by(path: Path) -> str | None:
    """The private mount that hides `path` inside the namespaces (None when the machine's folder shows)."""
    real = str(Path(path).resolve())
    return next((mount for mount in PRIVATE_MOUNTS if real == mount or real.startswith(mount + "/")), None)


def work_root(checkout: Path) -> Path:
    """Where a test's work folders go: the checkout's .cache when the namespaces see it, else the first of
    the user's cache folder or /var/cache that they see (a clone under /tmp is hidden by the private /tmp)."""
    candidates = [checkout / ".cache" / "real-systemd"]
    if os.environ.get("XDG_CACHE_HOME"):
        candidates.append(Path(os.environ["XDG_CACHE_HOME"]) / "hermes-wizard-tests" / "real-systemd")
    candidates += [Path.home() / ".cache" / "hermes-wizard-tests" / "real-systemd",
                   Path("/var/cache/hermes-wizard-tests/real-systemd")]
    return next(c.resolve() for c in candidates if c.is_absolute() and hidden_by(c) is None)


def masks() -> list[str]:
    """Every unit name the image could start, except journald's: they all become links to /dev/null."""
    names: set[str] = set()
    for folder in UNIT_DIRS:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(n for n in entries if n.endswith(MASKED_KINDS) and n not in KEPT_UNITS)
    try:  # SysV scripts become units through systemd-sysv-generator (postgresql, dbus...)
        names.update(f"{n}.service" for n in os.listdir("/etc/init.d") if not n.startswith("."))
    except OSError:
        pass
    return sorted(names)


def boot_script(work: Path, keep: list[Path]) -> str:
    """The script run as PID 1 of the new namespaces; it ends by exec'ing systemd."""
    lines = ["set -eu", "exec 3</tmp 4</var/tmp 5</run"]  # to bind kept paths back after the tmpfs hide them
    fds = {"/tmp": 3, "/var/tmp": 4, "/run": 5}
    for mount in PRIVATE_MOUNTS:
        mode = "1777" if mount in ("/tmp", "/var/tmp") else "0755"
        # journald falls back to /run/log/journal (private) where /var/log/journal does not exist
        lines.append(f"if [ -d {mount} ]; then mount -t tmpfs -o mode={mode} tmpfs {mount}; fi")
    for path in _outermost(keep):
        private = hidden_by(path)
        if private is None:
            continue
        if private not in fds:
            raise ValueError(f"{path} is under {private}, which the private systemd replaces: it cannot be kept")
        inside = f"/proc/self/fd/{fds[private]}/{shlex.quote(str(path)[len(private) + 1:])}"
        where = shlex.quote(str(path))
        # --no-canonicalize: else mount resolves /proc/self/fd/N to the path now hidden (see the docstring)
        lines += [f"mkdir -p {where}",
                  f"mount --no-canonicalize --bind {inside} {where}",
                  f'[ "$(stat -L -c %d:%i {inside})" = "$(stat -c %d:%i {where})" ] '
                  f'|| {{ echo "could not keep "{where}" inside the private mounts" >&2; exit 1; }}']
    lines += ["exec 3<&- 4<&- 5<&-",
              "umount -l /sys/fs/cgroup 2>/dev/null || true",
              "mount -t cgroup2 cgroup2 /sys/fs/cgroup",
              f"cp -a {shlex.quote(str(work / 'units'))}/. /etc/systemd/system/",
              f"while read -r name; do ln -sf /dev/null \"/etc/systemd/system/$name\"; done < "
              f"{shlex.quote(str(work / 'masks'))}",
              "ip link set lo up 2>/dev/null || true",
              f"exec {SYSTEMD} --system --unit={TEST_TARGET} --log-target=journal </dev/null >/dev/null 2>&1"]
    return "\n".join(lines) + "\n"


def _outermost(paths: list[Path]) -> list[Path]:
    """The paths with those inside another one dropped (binding the outer folder keeps them already)."""
    chosen: list[Path] = []
    for path in sorted({Path(p) for p in paths}, key=lambda p: len(p.parts)):
        if not any(path == c or c in path.parents for c in chosen):
            chosen.append(path)
    return chosen


def wait_for(predicate, timeout: float, step: float = 0.5):
    """The first true value of `predicate()` within `timeout` seconds, else its last value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


class PrivateSystemd:
    """One booted private systemd.  `run(argv)` runs a command inside its namespaces; `stop()` kills it."""

    def __init__(self, work: Path, keep: list[Path] = ()) -> None:
        self.work = work
        self.keep = [Path(p).resolve() for p in keep]  # the namespaces see real paths, not links
        self.pid: int | None = None
        self._unshare: subprocess.Popen | None = None
        self._cgroups_before: set[str] | None = None

    # -- life ------------------------------------------------------------------------------------------------

    def start(self, timeout: float = 60) -> PrivateSystemd:
        reason = why_unavailable()
        if reason:
            raise Unavailable(reason)
        if hidden_by(self.work):  # the boot script reads its units and masks from here after the mounts
            raise ValueError(f"the work folder {self.work} is under {hidden_by(self.work)}: use work_root()")
        units = self.work / "units"
        units.mkdir(parents=True, exist_ok=True)
        (units / TEST_TARGET).write_text("[Unit]\nDescription=hermes-wizard tests: nothing starts by itself\n")
        (self.work / "masks").write_text("\n".join(masks()) + "\n")
        self._cgroups_before = self._cgroup_dirs()
        script = self.work / "boot.sh"
        script.write_text(boot_script(self.work, self.keep))
        self._unshare = subprocess.Popen(
            ["unshare", "--mount", "--pid", "--fork", "--mount-proc", "--net", "--propagation", "private",
             "/bin/sh", str(script)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.work / "boot.err", "wb"), start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pid = self.pid or self._child_of(self._unshare.pid)
            if self._unshare.poll() is not None:
                raise Unavailable(f"the private systemd did not boot: {(self.work / 'boot.err').read_text()[-500:]}")
            if self.pid and self._comm(self.pid) == "systemd":
                state = self.run(["systemctl", "is-system-running"], check=False).stdout.strip()
                if state in ("running", "degraded"):
                    return self
            time.sleep(0.2)
        self.stop()
        raise Unavailable(f"the private systemd did not answer within {timeout:g} s")

    def stop(self) -> None:
        """Kill it by its own pid (the namespace's every process goes with it), then remove the cgroups
        it made in the cgroup2 hierarchy (this machine's own cgroups are v1: those are the only trace)."""
        if self.pid is not None and self._comm(self.pid) is not None:
            os.kill(self.pid, signal.SIGKILL)
        if self._unshare is not None:
            try:
                self._unshare.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._unshare.kill()
                self._unshare.wait(timeout=30)
            self._unshare = None
            self._tidy_cgroups()

    def _cgroup_dirs(self, remove: set[str] | None = None) -> set[str]:
        """The cgroup2 hierarchy's folders (relative), listed — or `remove`d, deepest first — in a mount
        namespace of their own."""
        mount = self.work / "cgroup2"
        mount.mkdir(exist_ok=True)
        script = (f"mount -t cgroup2 cgroup2 {shlex.quote(str(mount))} || exit 0; cd {shlex.quote(str(mount))}; "
                  + ("while read -r d; do rmdir \"$d\" 2>/dev/null; done" if remove is not None
                     else "find . -mindepth 1 -type d"))
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                              input="".join(f"{d}\n" for d in sorted(remove or (), key=len, reverse=True)),
                              capture_output=True,
                              text=True, timeout=60)
        return set(done.stdout.split())

    def _tidy_cgroups(self) -> None:
        if self._cgroups_before is None:
            return
        for _ in range(50):  # the killed processes leave their cgroups a moment later
            made = self._cgroup_dirs() - self._cgroups_before
            if not made:
                return
            self._cgroup_dirs(remove=made)
            time.sleep(0.2)

    def alive(self) -> bool:
        return self.pid is not None and self._comm(self.pid) == "systemd"

    # -- driving it ------------------------------------------------------------------------------------------

    def nsenter(self) -> list[str]:
        assert self.pid is not None
        return ["nsenter", "-t", str(self.pid), "-m", "-p", "-n"]

    def run(self, argv: list[str], check: bool = True, env: dict | None = None, timeout: float = 120,
            input: str | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run([*self.nsenter(), *argv], capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "SYSTEMD_PAGER": "", "SYSTEMD_COLORS": "0", **(env or {})},
                              input=input)
        if check and done.returncode != 0:
            raise AssertionError(f"{argv} exited {done.returncode}: {done.stdout}{done.stderr}")
        return done

    def write(self, path: str, text: str) -> None:
        """Write a file inside the namespace (its /etc/systemd/system is private)."""
        self.run(["sh", "-c", 'mkdir -p "$(dirname "$1")" && cat > "$1"', "sh", path], input=text)

    def install(self, name: str, text: str) -> None:
        """Write the unit and enable it as Hermes does (wanted by the running target: an enabled unit stays
        loaded, so `systemctl show` keeps its Result after a skipped start instead of a fresh unit's defaults),
        then daemon-reload."""
        self.write(f"/etc/systemd/system/{name}", text)
        self.run(["sh", "-c", f'mkdir -p "$1.wants" && ln -sf "../{name}" "$1.wants/{name}"', "sh",
                  f"/etc/systemd/system/{TEST_TARGET}"])
        self.run(["systemctl", "daemon-reload"])

    def show(self, unit: str, props: str = "NRestarts,ActiveState,SubState,Result,ExecMainStatus") -> dict[str, str]:
        out = self.run(["systemctl", "show", "-p", props, unit])
        return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)

    def watch(self, unit: str, seconds: float) -> list[dict]:
        """`show` every second for `seconds`."""
        seen = []
        for _ in range(int(seconds)):
            seen.append(self.show(unit))
            time.sleep(1)
        return seen

    def journal(self, unit: str) -> list[str]:
        out = self.run(["journalctl", "-u", unit, "-o", "cat", "--no-pager"], check=False)
        return [line for line in out.stdout.splitlines() if line and not line.startswith("-- ")]

    # -- helpers ---------------------------------------------------------------------------------------------

    @staticmethod
    def _child_of(pid: int) -> int | None:
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    @staticmethod
    def _comm(pid: int) -> str | None:
        try:
            return Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            return None
