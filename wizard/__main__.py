"""`python -m wizard` is `hermes-wizard`."""

import sys

from wizard.faces.cli import main

sys.exit(main())
