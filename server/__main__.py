"""`python -m server` runs the gradstep command line."""

import sys

from server.cli import main

sys.exit(main())
