"""Regenerate wizard/hermes/v0_19/env_keys.txt from a Hermes install (run with ITS python).

Hermes splits a `.env` line holding several `KNOWN_KEY=` assignments at start-up;
which names count is its own list (hermes_cli.config OPTIONAL_ENV_VARS plus
_EXTRA_ENV_KEYS).  We keep the names, one per line, as data.

    <hermes venv>/bin/python scripts/hermes-env-keys.py > wizard/hermes/v0_19/env_keys.txt
"""

import hermes_cli.config as config

for name in sorted(set(config.OPTIONAL_ENV_VARS) | set(config._EXTRA_ENV_KEYS)):
    print(name)
