"""python-dotenv's own parser and variable expansion, without the rest of its package.

Hermes reads `.env` with python-dotenv, so the wizard parses it with the very same code:
`dotenv.parser.parse_stream` (the bindings, with their original text) and
`dotenv.variables.parse_variables` (`${VAR:-default}` expansion).  Importing them as
`dotenv.parser` runs the package's `__init__` first, which imports `dotenv.main` and with it
`logging`, `tempfile`, `shutil` and `random`: about 12 ms, a quarter of what `check` may take
(ARCHITECTURE.md, "Performance targets"), for code the wizard never calls.  These two modules import
only `codecs`, `re`, `abc` and `typing`, so they are loaded here from the installed package's
own files, under names of ours (nothing named `dotenv.*` is registered half-made).

Contract: `parse_stream` and `parse_variables` are python-dotenv's functions, from the
python-dotenv installed beside this package; when `dotenv` is already imported, its modules are
used as they are.
"""

from __future__ import annotations

import sys
from importlib.machinery import SourceFileLoader
from importlib.util import find_spec, module_from_spec, spec_from_loader
from pathlib import Path
from types import ModuleType


def _dotenv_module(name: str) -> ModuleType:
    if "dotenv" not in sys.modules:
        try:
            return _file_module(name)
        except (ImportError, OSError):  # not a folder of source files (a zip, a frozen build): the usual way
            pass
    __import__(f"dotenv.{name}")  # already paid for, or the only way: the package's own module
    return sys.modules[f"dotenv.{name}"]


def _file_module(name: str) -> ModuleType:
    own = f"{__name__}._{name}"
    if own in sys.modules:
        return sys.modules[own]
    package = find_spec("dotenv")  # locates the package without running its __init__
    if package is None or not package.submodule_search_locations:
        raise ImportError("python-dotenv is not installed as a folder")
    path = Path(list(package.submodule_search_locations)[0]) / f"{name}.py"
    if not path.is_file():
        raise ImportError(f"no {path}")
    loader = SourceFileLoader(own, str(path))  # the same cached bytecode as a normal import of the file
    spec = spec_from_loader(own, loader)
    assert spec is not None
    module = module_from_spec(spec)
    sys.modules[own] = module
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[own]
        raise
    return module


parse_stream = _dotenv_module("parser").parse_stream
parse_variables = _dotenv_module("variables").parse_variables
