"""The plugin API of the ``aluette`` command: how a package adds a subcommand.

A package registers a :class:`Command` under the entry point group
``aluette.commands``; ``aluette NAME`` then builds the subcommand's parser
with ``add_arguments`` and calls ``run`` with the parsed arguments::

    # pyproject.toml
    [project.entry-points."aluette.commands"]
    hello = "my_package.hello:COMMAND"

    # my_package/hello.py
    from aluette_env.commands import Command, UsageError, bounded_int

    def add_arguments(parser):
        parser.add_argument("--times", type=bounded_int(1, 10), default=1,
                            help="how many greetings, 1 to 10")

    def run(args) -> int:
        print("hello " * args.times)
        return 0

    COMMAND = Command("print a greeting", add_arguments, run)

``run`` returns the exit code. Bad input is refused by raising
:class:`UsageError` (or, inside an argument ``type``, ``argparse.ArgumentTypeError``):
``aluette`` prints it as one line on stderr and exits with code 2, never a
traceback. The argument types below check their value before any work starts
and state what is allowed. Everything in this module is public and stays
compatible; the rest of :mod:`aluette_env.apps.cli` is the command's own.

May import: the standard library (and :mod:`aluette_env.apps.cli`, inside
:func:`run_command` only).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from collections.abc import Callable

__all__ = [
    "EXIT_FAILED", "EXIT_USAGE", "MAX_EVAL_DEALS", "MAX_SEED", "Command", "CommandFailed",
    "UsageError", "bounded_int",
    "deal_pairs", "positive_int", "run_command", "seed_int", "writable_file",
]

#: The exit code of bad input.
EXIT_USAGE = 2
#: The exit code of a command that started and could not finish.
EXIT_FAILED = 1
#: Most deal pairs one evaluation may ask for (each pair is two deals of four
#: hands kept in memory; a million takes a few hundred MB and hours of play).
MAX_EVAL_DEALS = 1_000_000
#: Seeds are 32-bit, as NumPy's legacy seeding and PyTorch's expect.
MAX_SEED = 2 ** 32 - 1


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit code 2."""


class CommandFailed(Exception):
    """A command that started and could not finish (what was saved is kept): printed
    as one line, exit code 1."""


@dataclass(frozen=True)
class Command:
    """A subcommand of ``aluette``: its one-line help, how it adds its arguments
    to its parser, and what runs it (returns the exit code)."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: an integer from ``low`` to ``high`` (say the range in the help)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer from {low:,} to {high:,}, "
                                             f"got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, got {value:,}")
        return value

    parse.__name__ = f"integer {low}-{high}"  # argparse names the type in some messages
    return parse


def positive_int(text: str) -> int:
    """An argument type: an integer of at least 1 (prefer :func:`bounded_int` for a budget)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


#: An argument type: deal pairs of an evaluation, 1 to MAX_EVAL_DEALS.
deal_pairs = bounded_int(1, MAX_EVAL_DEALS)
#: An argument type: a seed, 0 to MAX_SEED.
seed_int = bounded_int(0, MAX_SEED)


def writable_file(text: str) -> str:
    """An argument type: a file path whose folder exists and is writable (checked
    before any work starts; no folder is created)."""
    directory = os.path.dirname(os.path.abspath(text)) or "."
    if not text or os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file path")
    if not os.path.isdir(directory):
        raise argparse.ArgumentTypeError(f"cannot write {text}: folder {directory} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK) or \
            (os.path.exists(text) and not os.access(text, os.W_OK)):
        raise argparse.ArgumentTypeError(f"cannot write {text}: permission denied")
    return text


def run_command(argv: list[str]) -> int:
    """Run ``aluette ARGV`` as the console script does (bad input: one line on
    stderr, exit code 2); returns the exit code. For a plugin's ``python -m``."""
    from .apps.cli import main
    return main(argv)
