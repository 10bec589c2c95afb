"""The modelled Hermes versions, by version string: `model_for(judgement)` is the one that judges.

Contract: every name in `versions.MODELLED` has a model here (a test keeps it so).
"""

from __future__ import annotations

from wizard.hermes.model import Model
from wizard.hermes.v0_18.model import Hermes0180, Hermes0181, Hermes0182
from wizard.hermes.v0_19.model import Hermes019
from wizard.hermes.versions import NEWEST, Judgement

MODELS: dict[str, Model] = {model.version: model for model in (Hermes0180(), Hermes0181(), Hermes0182(), Hermes019())}


def model_for(judgement: Judgement | None) -> Model:
    """The model of the version a report is judged as (the newest when nothing is known)."""
    return MODELS[judgement.judged_as if judgement is not None else NEWEST]
