"""``python -m training CONFIG.yaml ...`` = ``aluette train CONFIG.yaml ...``."""

import sys

from aluette_env.apps.cli import main

if __name__ == "__main__":
    sys.exit(main(["train", *sys.argv[1:]]))
