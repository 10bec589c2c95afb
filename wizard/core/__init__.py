"""The bottom layer: a read-only mapping for frozen values (`frozenmap`), exit codes (`exitcodes`),
python-dotenv's parser alone (`dotenv_parts`), safe text for terminals (`safetext`), a home's
files opened without following links (`homefs`), atomic writes (`atomic`), shipped files
(`bundled`).  Imports nothing else of hermes-wizard.
"""
