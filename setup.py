"""Which import packages the wheel holds; every other packaging setting is in pyproject.toml.

Every package under wizard/ and screens/ is found, never listed: a hand-written list once left
wizard/plan/answers_file out of the wheel, and `setup --answers` failed only once installed.
The folders install under one import name (pyproject.toml's package-dir): wizard/ is `hermes_wizard`,
screens/ is `hermes_wizard.screens` and assets/ is `hermes_wizard._assets` (the one name no finder can
discover, because assets/ holds no Python). tests/system/test_wheel.py compares the installed files with the source tree.
"""

from setuptools import find_packages, setup


def found_under(folder: str, package: str) -> list[str]:
    """`package` and every package below `folder`, named as installed."""
    return [package, *(f"{package}.{sub}" for sub in find_packages(where=folder))]


setup(packages=[*found_under("wizard", "hermes_wizard"), *found_under("screens", "hermes_wizard.screens"),
                "hermes_wizard._assets"])
