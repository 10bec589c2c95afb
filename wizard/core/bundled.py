"""Files shipped with hermes-wizard: the Textual stylesheet and the example homes.

In a source checkout they are the top-level `assets/` folder; in an installed wheel the
same folder is packaged as `hermes_wizard/_assets/` (pyproject.toml maps it).  `assets_dir()`
finds whichever exists, so the tool works the same installed either way.
"""

from __future__ import annotations

from pathlib import Path

STYLESHEET = "wizard.tcss"
DEMO_HOME = "death-loop"


def assets_dir() -> Path:
    package = Path(__file__).resolve().parent.parent  # wizard/
    for candidate in (package / "_assets", package.parent / "assets"):
        if (candidate / STYLESHEET).is_file():
            return candidate
    raise FileNotFoundError(f"hermes-wizard's assets are missing (looked in {package / '_assets'} and "
                            f"{package.parent / 'assets'}): reinstall hermes-wizard")


def stylesheet() -> Path:
    return assets_dir() / STYLESHEET


def example_home(name: str = DEMO_HOME) -> Path:
    return assets_dir() / "homes" / name
