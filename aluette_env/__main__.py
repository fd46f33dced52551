"""``python -m aluette_env`` = the ``aluette`` command."""

import sys

from .commands import main

sys.exit(main())
