"""python -m duet devices | run [--device SPEC] [--quick]: the duet command's two everyday
subcommands, from Python (see duet/cli.py)."""

import sys

from .cli import main

sys.exit(main())
