"""Handing the terminal to Hermes's own login (faces/pair_now.py `Login`) and getting it back whole.

`hand_over(login, home, wait=...)` runs the login on a pseudo-terminal of its own, relayed to this terminal (as
`script(1)` does), and returns `HandedBack`: its exit status, its last lines as the user saw them, and the home's
files it wrote.  Why a terminal of its own: the child leads its own session, with the pty as its controlling
terminal, so every key reaches it as typed — Ctrl+C is a byte this side (the real terminal is raw meanwhile) and
the pty's line discipline turns it into the child's own SIGINT.  The wizard, in a different session, never sees
it: before, Hermes and the wizard shared the terminal's process group and one Ctrl+C ended both, losing what
was typed (the session) after Hermes had already written into the home.  The relay keeps the tail of what Hermes
printed, so its last words (an error on a run that exits 0 included) are said again after the wizard redraws.

While the terminal is handed over the wizard ignores SIGINT and SIGQUIT from elsewhere (a SIGINT is passed on to
the child, whose signal it is).  Then, with `wait`, it says how Hermes ended, which files it wrote, and waits for
Enter before the caller redraws (the TUI: Hermes's last lines stay on screen until the user has read them).

Security: the login runs as the caller, in the caller's own home only (`login_for` refuses a home of another
owner and names the owner's command instead), with the environment `login_for` built; the file listing walks the
home without following a link, and every name and line from it reaches the terminal through `visible` with the
home's secret values masked (`redact`).

Contract: `hand_over` returns once the child has ended (and, with `wait`, Enter was pressed); it raises nothing
for a child that cannot start (`HandedBack.problem` says why).  Words only here; the faces place them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import tty
from pathlib import Path
from typing import TYPE_CHECKING

from hermes_wizard.core.safetext import visible
from hermes_wizard.core.values import Value, value_class

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hermes_wizard.faces.pair_now import Login

TAIL_BYTES = 64 * 1024  # of Hermes's output kept for its last lines
TAIL_LINES = 6
LINE_WIDTH = 160  # a longer line is cut where it is shown again
MOST_FILES = 50_000  # entries of a home compared before/after; a larger home is not compared
NAMED_FILES = 8  # written files named one by one; the rest counted
_ALTERNATE_SCREEN = re.compile(rb"\x1b\[\?(?:1049|1047|47)h.*?\x1b\[\?(?:1049|1047|47)l", re.S)  # gone when left
_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[P^_][^\x1b]*(?:\x1b\\)?"
                      rb"|\x1b[ -/]*[0-~]")


@value_class
class HandedBack(Value):
    """How a hand-over ended: `code` the child's exit status (negative: the signal that ended it; None: it did not
    run, `problem` says why), its last non-blank `tail` lines (escape sequences removed, not yet made visible),
    and the home's files it `wrote` (created, changed or removed; relative paths; None: not compared)."""

    shown: str
    code: int | None
    problem: str = ""
    tail: tuple[str, ...] = ()
    wrote: tuple[str, ...] | None = ()

    def ended(self) -> str:
        """"hermes whatsapp ended", "… ended with exit status 130", "… was ended by Ctrl+C", "… did not run"."""
        if self.code is None:
            return f"{self.shown} did not run: {self.problem}"
        if self.code == -signal.SIGINT:
            return f"{self.shown} was ended by Ctrl+C"
        if self.code < 0:
            return f"{self.shown} was ended by signal {-self.code}"
        return f"{self.shown} ended" + (f" with exit status {self.code}" if self.code else "")

    def words(self, redact: Callable[[str], str] = lambda text: text, lines: int = TAIL_LINES,
              named: int = NAMED_FILES) -> list[str]:
        """What is said of it, line by line, safe to show: how it ended, its last `lines` lines, what it wrote
        (`named` files by name)."""
        said = [visible(redact(self.ended())) + "."]
        if lines and self.tail:
            said.append("Its last lines:")
            said += [f"  │ {visible(redact(line))[:LINE_WIDTH]}" for line in self.tail[-lines:]]
        said.append(_wrote_words(self.wrote, redact, named))
        return said


def hand_over(login: Login, home: Path, *, wait: bool, redact: Callable[[str], str] = lambda text: text,
              stdin: int | None = None, stdout: int | None = None) -> HandedBack:
    """Run `login` in this terminal (see the module's docstring); `redact` masks the home's secrets in what is
    printed after it.  `stdin`/`stdout`: the terminal's descriptors (this process's own by default)."""
    stdin = _descriptor(sys.__stdin__, 0) if stdin is None else stdin
    stdout = _descriptor(sys.__stdout__, 1) if stdout is None else stdout
    before = files_of(home)
    with _wizard_ignores_the_terminal() as child:
        try:
            code, output = _relay(login, stdin, stdout, child)
        except OSError as exc:
            return HandedBack(_short(login), None, exc.strerror or str(exc))
        after = files_of(home)
        back = HandedBack(_short(login), code, tail=last_lines(output),
                          wrote=None if before is None or after is None else written(before, after))
        if wait:
            _write(stdout, ("\r\n".join(["", *back.words(redact, lines=0),
                                         "Press Enter to go back to the wizard. "])).encode())
            _wait_for_enter(stdin)
    return back


def _short(login: Login) -> str:
    """The command as the user knows it ("hermes gateway setup"); which program ran was said before it ran."""
    return " ".join(("hermes", *login.argv[1:]))


def files_of(home: Path) -> dict[str, tuple[int, int, int, int]] | None:
    """Each entry below `home` but its folders (links not followed): its (mode, size, mtime, inode); None when the
    home has more than MOST_FILES entries or cannot be listed.  A folder below it that cannot be listed is left
    out (alike before and after); an entry gone while listed is too."""
    seen: dict[str, tuple[int, int, int, int]] = {}
    folders = [home]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            if folder == home:
                return None
            continue
        if len(seen) + len(folders) + len(entries) > MOST_FILES:
            return None
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(Path(entry.path))
                    continue
                stat = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            seen[os.path.relpath(entry.path, home)] = (stat.st_mode, stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return seen


def written(before: dict[str, tuple[int, int, int, int]],
            after: dict[str, tuple[int, int, int, int]]) -> tuple[str, ...]:
    """The names created, changed or removed between two `files_of` listings, shallowest first (`.env` and
    `config.yaml` before the thousands a bridge's `npm install` may leave deep in Hermes's own folder)."""
    changed = (name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    return tuple(sorted(changed, key=lambda name: (name.count(os.sep), name)))


def last_lines(output: bytes, count: int = 3 * TAIL_LINES) -> tuple[str, ...]:
    """The last `count` non-blank lines of a terminal's output as it showed them: escape sequences dropped, a line
    overwritten after a carriage return kept as overwritten, what was drawn on the alternate screen (a full-screen
    menu) and left with it dropped."""
    text = _ESCAPES.sub(b"", _ALTERNATE_SCREEN.sub(b"", output)).decode("utf-8", "replace").replace("\r\n", "\n")
    lines = [line.rsplit("\r", 1)[-1].rstrip() for line in text.split("\n")]
    return tuple(line for line in lines if line.strip())[-count:]


def _wrote_words(wrote: tuple[str, ...] | None, redact: Callable[[str], str], named: int) -> str:
    if wrote is None:
        return "The home's files were not compared (too many, or not readable)."
    if not wrote:
        return "No file in the home changed while it ran."
    names = ", ".join(visible(redact(name)) for name in wrote[:named])
    more = f" and {len(wrote) - named} more" if len(wrote) > named else ""
    count = "1 file" if len(wrote) == 1 else f"{len(wrote)} files"
    return f"{count} in the home changed while it ran: {names}{more}."


class _Child:
    """The running child, for the signal handler that passes a SIGINT on to it."""
    pid: int | None = None


@contextlib.contextmanager
def _wizard_ignores_the_terminal() -> Iterator[_Child]:
    """SIGINT is the child's (passed on to its session), SIGQUIT ignored, until the hand-over is done.  Outside the
    main thread (where Python installs no handler) nothing changes: the terminal is raw there anyway."""
    child = _Child()

    def pass_on(signum: int, frame: object) -> None:
        if child.pid is not None:
            with contextlib.suppress(OSError):
                os.killpg(child.pid, signal.SIGINT)

    try:
        saved = signal.signal(signal.SIGINT, pass_on), signal.signal(signal.SIGQUIT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        yield child
        return
    try:
        yield child
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGQUIT, saved[1])


def _relay(login: Login, stdin: int, stdout: int, child: _Child) -> tuple[int, bytes]:
    """Run the login on a new pty, relay both ways until it ends; its exit status and the tail of its output."""
    master, slave = pty.openpty()
    terminal = os.isatty(stdin)
    try:
        if terminal:
            termios.tcsetattr(slave, termios.TCSANOW, termios.tcgetattr(stdin))
            _same_size(stdin, master)
        proc = subprocess.Popen(list(login.argv), env=dict(login.env), stdin=slave, stdout=slave, stderr=slave,
                                start_new_session=True, preexec_fn=_take_the_pty)  # only an ioctl runs there
    except OSError:
        os.close(master)
        raise
    finally:
        os.close(slave)  # the child's copies are the only ones: the pty hangs up when it is gone
    child.pid = proc.pid
    saved = termios.tcgetattr(stdin) if terminal else None
    try:
        if terminal:
            tty.setraw(stdin, termios.TCSANOW)
        tail = _pump(proc, master, stdin if terminal or _readable(stdin) else None, stdout)
        return proc.wait(), tail
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)
        os.close(master)
        if proc.poll() is None:  # the relay failed under it: the login must not outlive the wizard's terminal
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGHUP)
            proc.wait()


def _pump(proc: subprocess.Popen[bytes], master: int, stdin: int | None, stdout: int) -> bytes:
    """Copy keys to the child and its output to the terminal until it has ended and its output is drained."""
    tail = bytearray()
    reading = True
    while True:
        ended = proc.poll() is not None
        ready, _, _ = select.select([master] * reading + ([stdin] if stdin is not None else []), [], [],
                                    0.02 if ended else 0.25)
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every copy of the pty's other side is closed
                data = b""
            reading = bool(data)
            _write(stdout, data)
            tail = (tail + data)[-TAIL_BYTES:]
        if ended and (master not in ready or not reading):
            return bytes(tail)
        if stdin is not None and stdin in ready:
            try:
                keys = os.read(stdin, 4096)
            except OSError:  # the terminal hung up: as the end of input
                keys = b""
            if keys:
                _write(master, keys)
            else:  # end of input: nothing more will be typed
                stdin = None
        if stdin is not None and os.isatty(stdin):
            _same_size(stdin, master)


def _take_the_pty() -> None:
    """In the child, after setsid: make its standard input (the pty) its controlling terminal."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _same_size(terminal: int, master: int) -> None:
    """The pty as large as the terminal (the child gets SIGWINCH when that changes)."""
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(terminal, termios.TIOCGWINSZ, b"\0" * 8)
        if fcntl.ioctl(master, termios.TIOCGWINSZ, b"\0" * 8) != size:
            fcntl.ioctl(master, termios.TIOCSWINSZ, size)


def _descriptor(stream: object, default: int) -> int:
    try:
        number = stream.fileno()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):
        return default
    return number if isinstance(number, int) else default


def _readable(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view):]
        except OSError:  # the terminal went away: nothing more can be shown
            return


def _wait_for_enter(stdin: int) -> None:
    """Until a line (or end of input) is read from the terminal, in its own cooked mode; nothing when it is not a
    terminal (no one is there to press Enter)."""
    if not os.isatty(stdin):
        return
    termios.tcflush(stdin, termios.TCIFLUSH)  # keys typed at Hermes after it ended are not this Enter
    while True:
        try:
            data = os.read(stdin, 1024)
        except OSError:
            return
        if not data or b"\n" in data or b"\r" in data:
            return
