"""Which import packages the wheel holds; every other packaging setting is in pyproject.toml.

Every package under wizard/ and screens/ is found, never listed: a hand-written list once left
wizard.plan.answers_file out of the wheel, and `setup --answers` failed only once installed.
The top-level assets/ folder ships as wizard._assets (pyproject.toml's package-dir maps it), which
no finder can discover because it is not a folder under wizard/, so it is the one name added.
tests/test_wheel.py compares the installed files with the source tree.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["wizard", "wizard.*", "screens", "screens.*"]), "wizard._assets"])
