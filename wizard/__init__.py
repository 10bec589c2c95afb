"""hermes-wizard: setup wizard and doctor for the Hermes Agent messaging gateway.

The engine (this package) never imports textual, questionary, keyring or ruamel;
UI faces load them lazily.
"""

__version__ = "0.1.0"
