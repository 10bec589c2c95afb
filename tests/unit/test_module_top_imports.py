"""Imports sit at module top, except at the documented lazy boundaries (ARCHITECTURE.md, "Performance targets").

An import inside a function hides a dependency from the reader (and runs on every call). It is allowed only
where importing at module top would cost something real, and each such place is a row of `BOUNDARIES` below,
with its reason; the module holding it says so in its own docstring (the word "lazily" names the place).
An import cycle is never a reason: a cycle is fixed by moving the shared piece down a layer.

The boundaries:

  ui          textual, questionary (rich, prompt_toolkit) and the Textual face: importing wizard/ never loads
              them (tests/unit/test_import_hygiene.py), only the face being shown does.
  keyring     ~0.2 s and maybe D-Bus at import: only core/keyring_store.py, only when a secret is kept there.
  ruamel      the round-trip YAML writer: only plan/yamledit.py, only when a plan edits config.yaml.
  hermes      Hermes's own modules (hermes_cli, gateway, agent, hermes_constants) exist only inside Hermes's
              venv: imported only by the code Hermes runs there (its plugin, its setup hook, the probes).
  metadata    importlib.metadata (~20 ms: email, zipfile, csv) only for `hermes-wizard --version` (faces/cli.py).
  plugin      every Hermes process that discovers plugins imports faces/hermes_plugin.py: the wizard's own
              modules load only when its command or hook runs.
  first screen  the TUI app imports the screen it shows first; the others (the help screen brings Textual's
              Markdown) load when first pushed; the writer and the service planning load when first used.
  dispatch    the command line imports the face of the command being run, so `check` and the gate never
              load doctor or setup machinery (faces/entry.py, faces/cli.py).
  check path  a module that `check` or the pre-start gate loads keeps off that path what only some of its
              callers need (json, subprocess, argparse, the keyring readers, ...): one row per module, and the
              test below proves each row still describes the check path.

Folders and files not converted yet are listed in PENDING: each is checked apart, as a strict xfail (once it is
clean, its entry must go).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "assets" / "homes" / "death-loop"


@dataclass(frozen=True)
class Boundary:
    name: str
    targets: tuple[str, ...]  # modules (and their submodules) imported lazily
    holders: tuple[str, ...]  # the modules allowed to hold the lazy import ("x.*": x's submodules)
    reason: str


UI = ("textual", "questionary", "rich", "prompt_toolkit", "hermes_wizard.screens")
HERMES = ("hermes_cli", "gateway", "agent", "hermes_constants")

BOUNDARIES = (
    Boundary("ui", UI, ("hermes_wizard.faces.*",),
             "UI libraries: importing wizard/ never loads them; only the face being shown does"),
    Boundary("keyring", ("keyring",), ("hermes_wizard.core.keyring_store",),
             "~0.2 s and maybe D-Bus at import: only when a secret is kept in the keyring"),
    Boundary("ruamel", ("ruamel",), ("hermes_wizard.plan.yamledit",),
             "the round-trip YAML writer: only when a plan edits config.yaml"),
    Boundary("hermes", HERMES, ("hermes_wizard.faces.hermes_plugin", "hermes_wizard.faces.hermes_secrets",
                                "hermes_wizard.faces.hermes_setup_hook", "hermes_wizard.hermes.ask_hermes",
                                "hermes_wizard.hermes.pairing_hermes"),
             "Hermes's own modules exist only inside Hermes's venv"),
    Boundary("dispatch", ("hermes_wizard.faces",), ("hermes_wizard.faces.entry", "hermes_wizard.faces.cli"),
             "the command line loads only the face of the command being run"),
    Boundary("metadata", ("importlib.metadata",), ("hermes_wizard.faces.cli",),
             "~20 ms (email, zipfile, csv) that only `--version` needs, on every command's start"),
    Boundary("plugin", ("hermes_wizard",), ("hermes_wizard.faces.hermes_plugin",),
             "every Hermes process that discovers plugins imports the plugin: the wizard loads when it runs"),
    Boundary("first screen", tuple(f"hermes_wizard.screens.{name}" for name in (
                 "help_screen", "access_screen", "platform_screen", "platforms_screen", "review_screen",
                 "result_screen", "confirm_quit")), ("hermes_wizard.screens.app",),
             "the TUI's first screen (ARCHITECTURE.md: within 1.5x of import textual.app) does not load the screens it "
             "does not show: ~40 ms CPU, the help screen's Markdown (markdown_it, pygments) ~25 ms of it"),
    Boundary("first screen", ("hermes_wizard.write.apply", "hermes_wizard.write.backups",
                              "hermes_wizard.write.saved_answers", "hermes_wizard.plan.service_planning"),
             ("hermes_wizard.cases.fixing", "hermes_wizard.screens.app"),
             "the TUI's first screen judges and plans but writes nothing: the writer, the backups, saving answers "
             "and deciding service steps (~57 M instructions, ~45 ms) load when the user applies or reviews"),
    # ---- the check path: each holder is loaded by `check` or the gate; each target is not, on some run ----
    Boundary("check path", ("json",), ("hermes_wizard.core.safetext",),
             "only JSON output needs it; the gate prints none"),
    Boundary("check path", ("json",), ("hermes_wizard.read.snapshot",),
             "only a home with JSON files needs it; the gate on a home without them never loads it"),
    Boundary("check path", ("json",), ("hermes_wizard.hermes.v0_20.plugins",),
             "only a YAML Telegram `mention_patterns` needs it (0.20's hook encodes it); the gate loads the model"),
    Boundary("check path", ("pickle",), ("hermes_wizard.hermes.loader.yamlfile",),
             "copying a kept parse of config.yaml (_pickle, struct): only a session judging the same bytes twice "
             "(doctor, the wizard), never check or the gate"),
    Boundary("check path", ("plistlib",), ("hermes_wizard.service.supervisors",),
             "plistlib (xml.parsers.expat, datetime) only when a launchd plist exists"),
    Boundary("check path", ("hermes_wizard.read.keyring_read",), ("hermes_wizard.read.snapshot",),
             "the keyring readers (~0.4 ms): only a config.yaml with `secrets:`; the gate loads the snapshot"),
    Boundary("check path", ("hermes_wizard.service.loop",), ("hermes_wizard.service.scope",),
             "loop evidence asks systemd (subprocess): only `check --service` and doctor"),
    Boundary("check path", ("hermes_wizard.service.systemd",), ("hermes_wizard.faces.check",),
             "the systemd runner (subprocess, ~15 ms): only `check --unit/--service`"),
    Boundary("check path", ("hermes_wizard.judge.report",), ("hermes_wizard.faces.check",),
             "the text renderer: JSON output never needs it"),
    Boundary("check path", ("hermes_wizard.hermes.verify",), ("hermes_wizard.judge.engine",),
             "asking the installed Hermes (a subprocess): only `--verify`, or a Hermes no model judges"),
    Boundary("check path", ("hermes_wizard.hermes.verify",), ("hermes_wizard.faces.gate",),
             "asking the installed Hermes (a subprocess): only the gate of a Hermes no model judges"),
    Boundary("check path", ("hermes_wizard.hermes.deciding_files",), ("hermes_wizard.hermes.install",),
             "hashing a Hermes's deciding files (hashlib, ~2.5 MB read): only a Hermes under another name"),
    Boundary("check path", ("hermes_wizard.service.loop",), ("hermes_wizard.judge.checks.service",),
             "loop evidence asks systemd (subprocess): only when a runner is configured"),
    Boundary("check path", ("hermes_wizard.faces.advice", "hermes_wizard.core.keyring_store",
                            "hermes_wizard.hermes.loader.secret_sources"),
             ("hermes_wizard.faces.judging",), "only the text tip of `check` needs them; the gate loads judging"),
    Boundary("check path", ("hermes_wizard.core.homefs", "hermes_wizard.plan.changes"),
             ("hermes_wizard.faces.contract",),
             "the writer's refusals: only to tell one from a bug once something escaped a command"),
    Boundary("check path", ("hermes_wizard.core.atomic",), ("hermes_wizard.faces.contract",),
             "the file writer (~7 ms): only to say, after an interruption, whether a write had begun"),
    Boundary("check path", ("json",), ("hermes_wizard.hermes.install",),
             "only an editable install's direct_url.json needs it; the gate on a home without JSON never loads it"),
    Boundary("check path", ("json", "hermes_wizard.core.deepjson"), ("hermes_wizard.hermes.access.pairing_store",),
             "the JSON readers: only where a pairing file is read; the gate asks every home whether its store "
             "builds, which reads no file where there is one pairing folder"),
    Boundary("check path", ("hermes_wizard.hermes.access.access_files",),
             ("hermes_wizard.hermes.model", "hermes_wizard.hermes.v0_17.model"),
             "the pairing store and alias readers (~3 ms, json): only access checks; the gate loads the model"),
    Boundary("check path", ("hermes_wizard.hermes.loader.secret_sources",), ("hermes_wizard.hermes.loader.resolve",),
             "the keyring secret sources (~1 ms): only a config.yaml with `secrets:`; the gate resolves every home"),
    Boundary("check path", ("hermes_wizard.hermes.access.authz", "hermes_wizard.hermes.v0_18.authz",
                            "hermes_wizard.hermes.v0_17.authz", "hermes_wizard.hermes.v0_20.authz",
                            "hermes_wizard.hermes.v0_21.authz"),
             ("hermes_wizard.hermes.v0_19.model", "hermes_wizard.hermes.v0_18.model",
              "hermes_wizard.hermes.v0_17.model", "hermes_wizard.hermes.v0_20.model",
              "hermes_wizard.hermes.v0_21.model"),
             "the authorizer and its readers (~15 ms): only access checks; the gate loads the version's model"),
    Boundary("check path", ("hermes_wizard.hermes.access.intake",),
             ("hermes_wizard.hermes.access.authz", "hermes_wizard.hermes.v0_17.authz",
              "hermes_wizard.hermes.v0_20.authz"),
             "the adapters' intake rules (~1.5 ms): only a message simulated through an own-policy adapter"),
)
CHECK_PATH = "check path"

PENDING: dict[str, str] = {}  # path → why it is not converted yet


@dataclass(frozen=True)
class InnerImport:
    holder: str  # the module, named as installed
    where: str  # path:line
    names: tuple[str, ...]  # the module imported, and for `from X import a` also X.a (a may be a submodule)
    docstring: str


def module_name(path: Path) -> str:
    rel = path.relative_to(REPO)
    parts = ["hermes_wizard", *rel.with_suffix("").parts[1:]] if rel.parts[0] == "wizard" else \
        ["hermes_wizard", *rel.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def inner_imports(path: Path) -> list[InnerImport]:
    """Every import statement inside a function or method of `path` (class bodies and module level are top)."""
    return scan(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py",
                str(path.relative_to(REPO)))


def scan(source: str, name: str, is_package: bool, label: str) -> list[InnerImport]:
    tree = ast.parse(source)
    package = name if is_package else name.rpartition(".")[0]
    docstring = ast.get_docstring(tree) or ""
    found: dict[int, InnerImport] = {}
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in found:
                continue
            if isinstance(node, ast.Import):
                names = tuple(alias.name for alias in node.names)
            else:
                base = node.module or ""
                if node.level:
                    kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(kept + ([base] if base else []))
                names = (base, *(f"{base}.{alias.name}" for alias in node.names))
            found[node.lineno] = InnerImport(name, f"{label}:{node.lineno}", names, docstring)
    return [found[line] for line in sorted(found)]


def under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def holds(boundary: Boundary, module: str) -> bool:
    return any(under(module, h[:-2]) and module != h[:-2] if h.endswith(".*") else module == h
               for h in boundary.holders)


def boundary_of(found: InnerImport) -> Boundary | None:
    for boundary in BOUNDARIES:
        if holds(boundary, found.holder) and any(under(n, t) for n in found.names[:1] for t in boundary.targets):
            return boundary
        # `from hermes_wizard.faces import doctor`: the module is the name imported, not the package
        if holds(boundary, found.holder) and found.names[1:] and all(
                any(under(n, t) for t in boundary.targets) for n in found.names[1:]):
            return boundary
    return None


def pending(path: Path) -> bool:
    rel = path.relative_to(REPO).as_posix()
    return any(rel == p or rel.startswith(p + "/") for p in PENDING)


def layer_files(layer: str) -> list[Path]:
    """The modules of a layer (`wizard/<layer>`, `screens`, `top`: wizard/*.py) or of a PENDING path."""
    if layer in PENDING:
        found = REPO / layer
        return [found] if found.is_file() else sorted(found.rglob("*.py"))
    if layer == "screens":
        files = (REPO / "screens").rglob("*.py")
    elif layer == "top":
        files = (REPO / "wizard").glob("*.py")
    else:
        files = (REPO / "wizard" / layer).rglob("*.py")
    return sorted(path for path in files if not pending(path))


LAYERS = ["top", "core", "hermes", "read", "service", "judge", "plan", "write", "faces", "screens"]


def everything(with_pending: bool = True) -> list[InnerImport]:
    paths = [*LAYERS, *PENDING] if with_pending else LAYERS
    return [found for layer in paths for path in layer_files(layer) for found in inner_imports(path)]


@pytest.mark.parametrize("layer", [*(layer for layer in LAYERS if layer_files(layer)), *(
    pytest.param(path, marks=pytest.mark.xfail(strict=True, reason=reason)) for path, reason in PENDING.items())])
def test_imports_sit_at_module_top_except_at_the_boundaries(layer):
    assert layer_files(layer), f"no modules found for {layer}"
    stray = [f"{found.where}: imports {found.names[0]} inside a function"
             for path in layer_files(layer) for found in inner_imports(path) if boundary_of(found) is None]
    assert not stray, "move these to the module top, or document a boundary (see this test's docstring):\n" \
        + "\n".join(stray)


def test_a_module_holding_a_boundary_says_so_in_its_docstring():
    silent = sorted({f"{found.holder} ({found.where})" for found in everything(with_pending=False)
                     if boundary_of(found) is not None and "lazil" not in found.docstring.lower()})
    assert not silent, "say in the module docstring what is imported lazily and why:\n" + "\n".join(silent)


def test_every_boundary_is_still_used():
    used = {id(b) for found in everything() if (b := boundary_of(found)) is not None}
    stale = [f"{b.name}: {b.targets} in {b.holders}" for b in BOUNDARIES if id(b) not in used]
    assert not stale, "boundaries no import needs any more (remove the row):\n" + "\n".join(stale)


def test_the_inner_import_walk_sees_what_it_should():
    """The walk itself: a method's or a nested function's import is found, a module-level or class-level one is
    not; relative imports are named absolutely."""
    source = ("import os\nclass A:\n    import re\n    def m(self):\n        from . import x\n"
              "def f():\n    def g():\n        import json.decoder\n    return g\n")
    found = scan(source, "hermes_wizard.core.probe", False, "probe.py")
    assert [f.names for f in found] == [("hermes_wizard.core", "hermes_wizard.core.x"), ("json.decoder",)]
    assert [f.where for f in found] == ["probe.py:5", "probe.py:8"]


# ---- the check path rows describe the check path -----------------------------------------------------------

PROBE = """
import sys
from hermes_wizard.faces.entry import main
main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("\\n".join(sorted(sys.modules)))
"""  # no json or anything else of its own: what it lists, the command loaded


def check_path_runs(tmp_path: Path) -> dict[str, set[str]]:
    """The modules loaded by check (JSON and text) and the gate, on the demo home, on a plain one, and on plain
    ones whose installed Hermes (a dist-info in `<home>/hermes-agent/venv`) is an older modelled version."""
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo, symlinks=True)
    homes = [demo]
    for name, version in (("plain", None), ("plain-0.18", "0.18.2"), ("plain-0.17", "0.17.0")):
        plain = tmp_path / name
        plain.mkdir()
        (plain / ".env").write_text("TELEGRAM_BOT_TOKEN=123:abc\nTELEGRAM_ALLOWED_USERS=1\n")
        (plain / "config.yaml").write_text("model: x\n")
        if version:
            info = plain / "hermes-agent/venv/lib/python3.11/site-packages" / f"hermes_agent-{version}.dist-info"
            info.mkdir(parents=True)
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: hermes-agent\nVersion: {version}\n")
        homes.append(plain)
    runs = {f"{what} {home.name}": ["check", *flags, "--home", str(home)] for home in homes
            for what, flags in (("check-json", ["--format", "json"]), ("check-text", []), ("gate", ["--gate"]))}
    result = {}
    for name, argv in runs.items():  # one fresh interpreter each: nothing one run loaded hides another's
        out = tmp_path / "modules.json"
        done = subprocess.run([sys.executable, "-c", PROBE, str(out), *argv], cwd=REPO,
                              capture_output=True, text=True, timeout=120, env={"HOME": str(tmp_path),
                                                                                "PATH": "/usr/bin:/bin"})
        assert out.exists(), done.stderr[-3000:]
        result[name] = set(out.read_text().split())
        out.unlink()
    return result


def test_each_check_path_boundary_keeps_something_off_the_check_path(tmp_path):
    runs = check_path_runs(tmp_path)
    wrong = []
    for boundary in (b for b in BOUNDARIES if b.name == CHECK_PATH):
        for holder in boundary.holders:
            for target in boundary.targets:
                if not any(holder in loaded and target not in loaded for loaded in runs.values()):
                    wrong.append(f"{holder} → {target}: no check or gate run loads the first without the second")
    assert not wrong, "check-path boundaries that keep nothing off the check path:\n" + "\n".join(wrong)
