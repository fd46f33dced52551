"""``python -m aluette_env`` = the ``aluette`` command."""

import sys

from .apps.cli import main

sys.exit(main())
