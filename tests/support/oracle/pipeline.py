"""Ask the oracle about many homes without waiting for each answer.

:class:`Pipeline` shares the long-lived stream-mode probe of an
:class:`oracle.Oracle` (the session fixture): ``submit`` copies the home at once
(so the caller may go on changing it) and writes its path to the probe;
``drain`` returns every answer in submission order. While we generate homes or
run our engine in this process, Hermes works on earlier homes in its own, so the
two overlap on a multi-core machine.

Answers are read opportunistically after each submit and at most
``MAX_PENDING`` homes are queued, so neither pipe fills up and nothing
deadlocks however many homes are submitted. Do not
call ``Oracle.evaluate`` on the same oracle while answers are pending.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import time
from pathlib import Path

from . import TIMEOUT, Oracle, copy_home

MAX_PENDING = 200  # paths queued in the probe's stdin (well under a 64 KiB pipe)


class Pipeline:
    def __init__(self, oracle: Oracle, label: str = "p") -> None:
        self.oracle = oracle
        self.root = oracle.scratch / f"pipeline-{label}"
        self._pending: list[tuple[object, Path, Path]] = []  # (tag, home, copy), oldest first
        self._answers: list[tuple[object, dict]] = []
        self._n = 0
        self._buf = b""

    def submit(self, home: Path, tag: object = None) -> None:
        """Queue *home* (a copy of it as it is now); its answer comes back with *tag*."""
        while len(self._pending) >= MAX_PENDING:  # keep the probe's stdin pipe from filling up
            self._read(block=True)
        self._n += 1
        copy = copy_home(Path(home), self.root / f"q{self._n:05d}")
        proc = self.oracle._start()
        proc.stdin.write(f"{copy}\n")
        proc.stdin.flush()
        self._pending.append((tag, Path(home), copy))
        self._read(block=False)

    def drain(self) -> list[tuple[object, dict]]:
        """Every (tag, answer) submitted since the last drain, in submission order."""
        t0 = time.perf_counter()
        while self._pending:
            self._read(block=True)
        self.oracle.seconds += time.perf_counter() - t0
        answers, self._answers = self._answers, []
        return answers

    def _read(self, block: bool) -> None:
        """Take every whole answer line available (waiting for one more when *block*).

        Reads the raw pipe, not ``proc.stdout``: a buffered reader could hold
        lines that ``select()`` no longer sees.
        """
        proc = self.oracle._proc
        fd = proc.stdout.fileno()
        while self._pending:
            while b"\n" in self._buf and self._pending:
                line, self._buf = self._buf.split(b"\n", 1)
                self._take(line.decode("utf-8"))
                block = False  # got at least one: go on only with what is already there
            if not self._pending:
                return
            ready, _, _ = select.select([fd], [], [], TIMEOUT if block else 0)
            if not ready:
                if block:
                    proc.kill()
                    raise RuntimeError(f"oracle probe gave no answer in {TIMEOUT}s:\n{self.oracle.stderr_tail()}")
                return
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise RuntimeError(f"oracle probe died on {self._pending[0][1]}:\n{self.oracle.stderr_tail()}")
            self._buf += chunk

    def _take(self, line: str) -> None:
        tag, home, copy = self._pending.pop(0)
        shutil.rmtree(copy, ignore_errors=True)
        result = json.loads(line)
        result["home"] = str(home)
        self.oracle.evaluated += 1
        self._answers.append((tag, result))
