"""`python -m wizard` is `hermes-wizard`."""

from wizard.faces.entry import console

console()
