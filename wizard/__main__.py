"""`python -m wizard` is `hermes-wizard`."""

import sys

from wizard.cli import main

sys.exit(main())
