"""The bottom layer: small values (`records`), safe text for terminals (`safetext`), a home's
files opened without following links (`homefs`), atomic writes (`atomic`), shipped files
(`bundled`).  Imports nothing else of hermes-wizard.
"""
