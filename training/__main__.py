"""``python -m training CONFIG.yaml ...`` = ``aluette train CONFIG.yaml ...``."""

import sys

from aluette_env.commands import run_command

if __name__ == "__main__":
    sys.exit(run_command(["train", *sys.argv[1:]]))
