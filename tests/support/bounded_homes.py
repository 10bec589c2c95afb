"""Homes whose `.env` or config.yaml sits exactly at a bound of what the tool judges, or one unit past it.

The bounds (wizard/hermes/loader/envfile.py JUDGED_ENV_*, yamlfile.py JUDGED_YAML_NODES) promise that anything
within them is judged in well under a second, the pre-start gate included, and anything past them is answered
"cannot judge" (HW024) at once.  Each shape here is one of the costliest per unit counted (a line, a byte, an
estimated node), padded onto the demo home so the file counts exactly `bound + past` units: the tests judge
both sides of every bound, and benchmarks/bench_inputs.py times the homes at the bound ("bound:" rows).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from hermes_wizard.hermes.loader.envfile import JUDGED_ENV_BYTES, JUDGED_ENV_LINES
from hermes_wizard.hermes.loader.yamlfile import JUDGED_YAML_NODES, PURE_PYTHON_NODES, estimated_nodes

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"  # refuses to start: judged, the gate says 78


def _lines(raw: bytes) -> int:
    return raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")


def env_lines(line: Callable[[int], str]) -> Callable[[bytes, int], bytes]:
    """A `.env` padded with `line(i)` lines up to JUDGED_ENV_LINES + past lines."""
    def build(base: bytes, past: int) -> bytes:
        base = base if base.endswith(b"\n") else base + b"\n"
        wanted = JUDGED_ENV_LINES + past - _lines(base)
        return base + "".join(line(i) + "\n" for i in range(wanted)).encode()
    return build


def env_bytes(unit: str) -> Callable[[bytes, int], bytes]:
    """A `.env` ending in one long `X=` line of `unit`s, JUDGED_ENV_BYTES + past bytes in all."""
    def build(base: bytes, past: int) -> bytes:
        base = (base if base.endswith(b"\n") else base + b"\n") + b"X="
        room = JUDGED_ENV_BYTES + past - len(base) - 1
        body = (unit * (room // len(unit) + 1)).encode()[:room]
        return base + body + b"\n"
    return build


def yaml_nodes(unit: str, first: str = "", last: str = "", bound: int = JUDGED_YAML_NODES
               ) -> Callable[[bytes, int], bytes]:
    """A config.yaml padded with a `padding:` key holding `first + unit * k + last`, estimated at the most
    nodes within `bound` (`past` = 0: the estimate is always odd) or the fewest past it (`past` = 1); a `#-`
    comment line adds the two the units may leave short."""
    def build(base: bytes, past: int) -> bytes:
        head = (base if base.endswith(b"\n") else base + b"\n") + f"padding: {first}".encode()
        tail = f"{last}\n".encode()
        per = estimated_nodes(unit.encode()) - 1
        wanted = bound - (1 - bound % 2) if past == 0 else bound + 1 + bound % 2
        count = max(0, (wanted - estimated_nodes(head + tail)) // per)
        text = head + (unit * count).encode() + tail
        text += b"#-\n" * ((wanted - estimated_nodes(text)) // 2)
        assert estimated_nodes(text) == wanted, (estimated_nodes(text), wanted)
        return text
    return build


def yaml_platform_keys(base: bytes, past: int) -> bytes:
    """A config.yaml of unknown `platforms:` keys, each enabled with an open policy (the benchmark's
    shape: a loader pass per platform on top of the parse), padded like `yaml_nodes`."""
    bound = JUDGED_YAML_NODES
    wanted = bound - (1 - bound % 2) if past == 0 else bound + 1 + bound % 2
    lines, i = ["platforms:"], 0
    estimate = estimated_nodes(b"platforms:\n")
    while estimate + 6 <= wanted:
        lines.append(f"  extra{i}:\n    enabled: true\n    dm_policy: open")
        estimate, i = estimate + 6, i + 1
    text = ("\n".join(lines) + "\n").encode() + b"#-\n" * ((wanted - estimate) // 2)
    assert estimated_nodes(text) == wanted, (estimated_nodes(text), wanted)
    return text


# name -> (file, builder): the costliest shapes found per unit (measured: benchmarks/bench_inputs.py)
SHAPES: dict[str, tuple[str, Callable[[bytes, int], bytes]]] = {
    "env-glued-lines": (".env", env_lines(lambda i: f"TELEGRAM_BOT_TOKEN=1WHATSAPP_ENABLED=true{i}")),
    "env-reference-chain": (".env", env_lines(lambda i: f"K{i}=${{K{i - 1}}}x")),
    "env-quoted-lines": (".env", env_lines(lambda i: f"K{i}=\"a b\" # c")),
    "env-one-line-references": (".env", env_bytes("${A}")),
    "env-one-line-escapes": (".env", env_bytes('"\\"')),
    "env-one-line-glued": (".env", env_bytes("TELEGRAM_BOT_TOKEN=1")),
    "yaml-flow-integers": ("config.yaml", yaml_nodes("1,", "[", "1]")),
    "yaml-block-keys": ("config.yaml", yaml_nodes("\n  k: v", "", "")),
    "yaml-flow-mappings": ("config.yaml", yaml_nodes("{a: 1},", "[", "{}]")),
    "yaml-empty-sequences": ("config.yaml", yaml_nodes("[],", "[", "[]]")),
    "yaml-block-sequence": ("config.yaml", yaml_nodes("\n  - 1", "", "")),
    "yaml-platform-keys": ("config.yaml", yaml_platform_keys),
    # the largest file still parsed by the pure-Python parser Hermes uses (25 µs a node)
    "yaml-pure-python-integers": ("config.yaml", yaml_nodes("1,", "[", "1]", PURE_PYTHON_NODES)),
}


def write_home(dest: Path, shape: str, past: int = 0) -> Path:
    """The demo home with the file of `shape` at its bound (`past` = 0) or `past` units beyond it."""
    name, build = SHAPES[shape]
    shutil.copytree(DEMO, dest, symlinks=True)
    (dest / ".env").chmod(0o600)
    (dest / name).write_bytes(build((DEMO / name).read_bytes(), past))
    return dest
