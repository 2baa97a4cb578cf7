"""`python -m analyzer.cli ...` runs the `rerunlens` command line."""

import sys

from analyzer.cli.main import main

sys.exit(main())
