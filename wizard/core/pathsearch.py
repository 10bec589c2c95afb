"""`which`: the executable a command name runs, found on a PATH as `shutil.which` finds it (POSIX).

The check and the pre-start gate look for `hermes`, `node` and `raft` on every run.  `shutil` itself
brings `zlib`, `bz2`, `lzma` and `fnmatch` with it: about 1.5 ms of CPU that neither needs (ARCHITECTURE.md,
"Performance targets"; benchmarks/bench_cpu.py).  This is the same search without them.

Contract: `which(name, path)` returns what `shutil.which(name, path=path)` returns on POSIX: a name
with a folder part is checked as it is; otherwise each PATH entry in order (an empty entry is the
current folder, repeats are skipped), the first that names an existing executable non-folder; None
when nothing does or PATH is empty.  `path=None` reads `os.environ["PATH"]`, else the system default (`CS_PATH`).
"""

from __future__ import annotations

import os


def which(name: str, path: str | None = None) -> str | None:
    if os.path.dirname(name):
        return name if _runnable(name) else None
    if path is None:
        path = os.environ.get("PATH")
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:  # PATH='' finds nothing; PATH=':' looks in the current folder
        return None
    seen: set[str] = set()
    for folder in path.split(os.pathsep):
        if folder in seen:
            continue
        seen.add(folder)
        candidate = os.path.join(folder, name)
        if _runnable(candidate):
            return candidate
    return None


def _runnable(candidate: str) -> bool:
    return os.path.exists(candidate) and os.access(candidate, os.F_OK | os.X_OK) and not os.path.isdir(candidate)
