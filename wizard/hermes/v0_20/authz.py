"""Hermes 0.20.1's authorization (placeholder while the model is built)."""

from __future__ import annotations

from hermes_wizard.hermes.access.authz import Authorizer


class Authorizer020(Authorizer):
    version = "0.20.1"
