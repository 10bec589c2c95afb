"""`python -m hermes_wizard` is `hermes-wizard`."""

from hermes_wizard.faces.entry import console

console()
