"""`python -m wizard` is `hermes-wizard`."""

import sys

from wizard.faces.entry import main

sys.exit(main())
