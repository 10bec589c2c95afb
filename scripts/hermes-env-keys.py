"""Regenerate a model's env_keys.txt (wizard/hermes/v0_XX/) from a Hermes install (run with ITS python).

Hermes knows a list of `.env` names (hermes_cli.config OPTIONAL_ENV_VARS plus _EXTRA_ENV_KEYS, the
bundled plugins' names included); up to 0.19 its start-up splits a line holding several `KNOWN_KEY=`
assignments on them.  We keep the names, one per line, as data.

    <hermes 0.19.0 venv>/bin/python scripts/hermes-env-keys.py > wizard/hermes/v0_19/env_keys.txt
    HERMES_HOME=<empty dir> <hermes 0.20.1 venv>/bin/python scripts/hermes-env-keys.py \
        > wizard/hermes/v0_20/env_keys.txt
"""

import hermes_cli.config as config

for name in sorted(set(config.OPTIONAL_ENV_VARS) | set(config._EXTRA_ENV_KEYS)):
    print(name)
