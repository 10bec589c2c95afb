"""The modelled Hermes versions, by version string: `model_for(judgement)` is the one that judges.

Each model is imported when first asked for: judging for 0.19 never loads the 0.18 modules (the
check path pays for every module it imports).

Contract: every name in `versions.MODELLED` has a model here (a test keeps it so).
"""

from __future__ import annotations

from importlib import import_module

from hermes_wizard.hermes.model import Model
from hermes_wizard.hermes.versions import MODELLED, NEWEST, Judgement

# version → (module, class) of its model
MODEL_CLASSES = {
    "0.17.0": ("hermes_wizard.hermes.v0_17.model", "Hermes017"),
    "0.18.0": ("hermes_wizard.hermes.v0_18.model", "Hermes0180"),
    "0.18.1": ("hermes_wizard.hermes.v0_18.model", "Hermes0181"),
    "0.18.2": ("hermes_wizard.hermes.v0_18.model", "Hermes0182"),
    "0.19.0": ("hermes_wizard.hermes.v0_19.model", "Hermes019"),
    "0.20.1": ("hermes_wizard.hermes.v0_20.model", "Hermes0201"),
    "0.21.3": ("hermes_wizard.hermes.v0_21.model", "Hermes0213"),
}
_LOADED: dict[str, Model] = {}


def model_of(version: str) -> Model:
    """The model of a modelled version (KeyError for any other)."""
    if version not in _LOADED:
        module, name = MODEL_CLASSES[version]
        _LOADED[version] = getattr(import_module(module), name)()
    return _LOADED[version]


def all_models() -> dict[str, Model]:
    """Every modelled version's model, loaded."""
    return {version: model_of(version) for version in MODELLED}


def model_for(judgement: Judgement | None) -> Model:
    """The model of the version a report is judged as (the newest when nothing is known)."""
    return model_of(judgement.judged_as if judgement is not None else NEWEST)


def refuses_at_start(judgement: Judgement | None) -> bool:
    """Does the Hermes judged here refuse to start on an open policy?  The one answer the engine and the
    gate use: the judging model's (`Judgement.refuses` reads the same from the version string, for the
    wording of a version that is not modelled; tests/unit/test_version_seam.py keeps the two equal)."""
    return model_for(judgement).has_startup_refusal
