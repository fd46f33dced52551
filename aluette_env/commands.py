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
and state what is allowed; :func:`writable_file` and :func:`check_not_input`
check an output path before any work, and :func:`write_json` writes one.
Everything in this module is public and stays compatible.

The command itself is built here too: :func:`build_parser` makes one
subcommand per entry point (``eval`` and ``ratings`` are
:mod:`aluette_env.apps.cli`'s, registered like any plugin), and :func:`main`
(the console script) and :func:`run_command` run it with the one-line errors.
A run loads only the entry point of the command it names (every one for the
help, or for a name that is none of them).

May import: the standard library (and, inside :func:`run_command` only, the
player registry's error class).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import stat
import sys
import tempfile
import threading
from dataclasses import dataclass
from importlib import metadata
from collections.abc import Callable

__all__ = [
    "EXIT_FAILED", "EXIT_USAGE", "MAX_EVAL_DEALS", "MAX_SEED", "Command", "CommandFailed",
    "Terminated", "UsageError", "bounded_int", "build_parser", "check_not_input",
    "deal_pairs", "environment_defaults", "main", "positive_int", "printable", "run_command",
    "seed_int", "writable_file", "write_json",
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


class Terminated(KeyboardInterrupt):
    """SIGTERM while a command runs, raised where Ctrl-C raises KeyboardInterrupt:
    the command stops the same way (its ``finally`` blocks run, its worker
    processes end, multiprocessing's semaphores are released instead of being
    reported leaked) and says so in one line, exit code 143."""


def _terminate(signum, frame) -> None:
    raise Terminated


@dataclass(frozen=True)
class Command:
    """A subcommand of ``aluette``: its one-line help, how it adds its arguments
    to its parser, and what runs it (returns the exit code). ``old_name_of``:
    this entry point is the old name of that subcommand, kept so that what
    people type still runs; it is left out of ``aluette --help``'s list."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    old_name_of: str | None = None


def _bounded(convert: Callable[[str], float], low: float, high: float, shown: str,
             what: str, unit: str = "") -> Callable[[str], float]:
    """An argument type: ``convert(text)`` from ``low`` to ``high``, both written
    with the format ``shown``; ``what`` names the kind in the refusals."""
    span = f"{low:{shown}} to {high:{shown}}"

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} from {span}, "
                                             f"got {text[:40]!r}") from None
        if not low <= value <= high:  # NaN fails too
            got = f"{value:{shown}}" if convert is int else repr(text[:40])
            raise argparse.ArgumentTypeError(f"must be from {span}{unit}, got {got}")
        return value

    plain = "d" if convert is int else "g"
    parse.__name__ = f"{what.split()[-1]} {low:{plain}}-{high:{plain}}"  # argparse names it
    return parse


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argument type: an integer from ``low`` to ``high`` (say the range in the help)."""
    return _bounded(int, low, high, ",", "an integer")


def bounded_seconds(low: float, high: float) -> Callable[[str], float]:
    """An argument type: a number of seconds from ``low`` to ``high``."""
    return _bounded(float, low, high, "g", "seconds", " seconds")


def positive_int(text: str) -> int:
    """An argument type: an integer of at least 1 (prefer :func:`bounded_int` for a budget)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def probability(text: str) -> float:
    """An argument type: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:  # NaN fails too
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {text!r}")
    return value


#: An argument type: deal pairs of an evaluation, 1 to MAX_EVAL_DEALS.
deal_pairs = bounded_int(1, MAX_EVAL_DEALS)
#: An argument type: a seed, 0 to MAX_SEED.
seed_int = bounded_int(0, MAX_SEED)


class _FromEnvironment(str):
    """An option's value read from the environment variable ``name``."""

    name: str


def _environment_type(convert: Callable[[str], object] | None) -> Callable[[str], object]:
    """``convert`` (an argument type), whose refusal of a value read from the
    environment names the variable."""
    convert = convert or str

    def parse(text: str):
        try:
            return convert(text)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as err:
            if not isinstance(text, _FromEnvironment):
                raise
            reason = str(err) or f"not a valid {getattr(convert, '__name__', 'value')}"
            raise argparse.ArgumentTypeError(f"from {text.name}={text[:60]!r}: {reason}"
                                             ) from None

    parse.__name__ = getattr(convert, "__name__", "value")
    return parse


def switch(text: str) -> bool:
    """An argument type: on or off, as an environment variable writes it."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected 1/true/yes/on or 0/false/no/off, got {text[:40]!r}")


def environment_defaults(parser: argparse.ArgumentParser, prefix: str) -> dict[str, str]:
    """Each option of ``parser`` also read from the environment variable of
    its name: ``prefix`` and the option's name in capitals, ``-`` as ``_``
    (``--max-games``: ``ALUETTE_MAX_GAMES``). The option given on the command
    line wins; an empty variable counts as unset; a value the option refuses is
    refused as the option's would be, naming the variable (checked when the
    command is parsed, so a variable of another command is never read). A
    switch (``store_true``) reads 1/true/yes/on or 0/false/no/off. Returns each
    option's variable, and adds it to the option's help."""
    names = {}
    for action in parser._actions:
        if not action.option_strings or isinstance(action, (argparse._HelpAction,
                                                            argparse._VersionAction)):
            continue
        option = max(action.option_strings, key=len)
        name = prefix + option.lstrip("-").upper().replace("-", "_")
        names[option] = name
        action.help = f"{action.help or ''} [{name}]".strip()
        text = os.environ.get(name, "")
        if not text:
            continue
        value = _FromEnvironment(text)
        value.name = name
        switched = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
        # argparse converts a default given as text with the option's type (a
        # switch's type is used for nothing else).
        action.type = _environment_type(switch if switched else action.type)
        action.default = value
    return names


def writable_file(text: str) -> str:
    """An argument type: a file path whose folder exists and can be written (checked
    by creating and removing a file there: permission bits do not tell for root,
    read-only mounts or /proc), before any work starts; no folder is created. An
    existing device or pipe (``/dev/stdout``) is written into, never replaced."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path; give a file path")
    shown = text if len(text) <= 200 else text[:200] + "..."
    try:
        if os.path.isdir(text):
            raise argparse.ArgumentTypeError(f"{shown} is a folder; give a file path")
        directory = os.path.dirname(os.path.abspath(text)) or "."
        if not os.path.isdir(directory):
            raise argparse.ArgumentTypeError(f"cannot write {shown}: folder "
                                             f"{directory[:200]} does not exist")
        if os.path.exists(text) and not stat.S_ISREG(os.stat(text).st_mode):
            os.close(os.open(text, os.O_WRONLY | os.O_NONBLOCK))
        else:
            with tempfile.NamedTemporaryFile(dir=directory, prefix=".write-test-"):
                pass
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot write {shown}: "
                                         f"{err.strerror or err}") from None
    return text


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: each character that is not printable
    (an ANSI escape, a newline, a bidi control, a lone surrogate) as its escape, so
    a name from a record or a command line shows as written and cannot restyle,
    move or break the output. With rich, print it with ``markup=False`` (or as a
    ``Text``) so that ``[bold]`` stays text too."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def _same_file(a: str, b: str) -> bool:
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def check_not_input(path: str, option: str, inputs: list[str]) -> None:
    """:class:`UsageError` if the output ``path`` is one of the files the command
    reads (``inputs``: paths, or player specs whose path part is checked too),
    before any work: an output never overwrites an input."""
    for item in inputs:
        if not isinstance(item, str) or not item:
            continue
        candidates = [item]
        if ":" in item:
            candidates.append(item.rpartition(":")[0])
        if any(_same_file(path, c) for c in candidates if c):
            raise UsageError(f"{option} {path[:200]}: that is an input of this command "
                             f"({item[:200]}); give another file for the output")


def write_json(path: str, data: dict) -> None:
    """Write ``data`` as indented JSON to ``path``: a regular file atomically (a
    temporary file in its folder, then renamed over it; a symbolic link stays a
    link to the new file), a device or pipe by writing into it.
    :class:`UsageError` naming the path when it cannot be written."""
    text = json.dumps(data, indent=2) + "\n"
    tmp = None
    try:
        if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return
        target = os.path.realpath(path)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
        tmp = None
    except OSError as err:
        raise UsageError(f"cannot write {path[:200]}: {err.strerror or err}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


# ----------------------------------------------------------------- the command


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


class _HelpFormatter(argparse.HelpFormatter):
    """Adds each option's default to its help unless the help states it already."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.required or action.default is argparse.SUPPRESS \
                or not action.option_strings:
            return text
        if isinstance(action, argparse._StoreTrueAction):
            return f"{text} (default: off)"
        if action.default is None or action.default == []:
            return text  # the help says what leaving it out means
        return f"{text} (default: %(default)s)"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``aluette`` parser: a subcommand per ``aluette.commands`` entry point;
    with ``command`` (an entry point's name), that subcommand alone, so that a run
    imports only its own command's modules. Any other ``command`` gives the whole
    parser, which lists every command in its help and its errors."""
    from . import __version__
    parser = _Parser(prog="aluette", description="Aluette: evaluate, train and play AI players.",
                     epilog="Player specs: heuristic, random, ai (the shipped model), pimc, a "
                            "model.onnx or a training run folder; options follow one ':' "
                            "(random:seed=3). 'aluette COMMAND --help' for each command.",
                     formatter_class=_HelpFormatter)
    parser.add_argument("--version", action="version", version=f"aluette {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser,
                                metavar="COMMAND")
    points = sorted(metadata.entry_points(group="aluette.commands"), key=lambda e: e.name)
    if any(ep.name == command for ep in points):
        points = [ep for ep in points if ep.name == command]
    for ep in points:
        cmd: Command = ep.load()
        if cmd.old_name_of:  # parsed and run, not listed (argparse lists a help)
            p = sub.add_parser(ep.name, formatter_class=_HelpFormatter,
                               description=f"{cmd.help} (the old name of "
                                           f"'aluette {cmd.old_name_of}')")
        else:
            p = sub.add_parser(ep.name, help=cmd.help, description=cmd.help,
                               formatter_class=_HelpFormatter)
        cmd.add_arguments(p)
        p.set_defaults(run=cmd.run)
    return parser


def run_command(argv: list[str]) -> int:
    """Run ``aluette ARGV`` as the console script does, and return the exit code:
    bad input (:class:`UsageError`, a bad player spec) is one line on stderr and
    code 2, a command that could not finish (:class:`CommandFailed`) one line and
    code 1, never a traceback; Ctrl-C (SIGINT) and SIGTERM stop it with one line
    and codes 130 and 143. For a plugin's ``python -m``."""
    argv = list(argv)
    # Signal handlers belong to the main thread (a caller's thread keeps its own).
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminate) if main_thread else None
    try:
        return _run(argv)
    except KeyboardInterrupt as err:  # from the first import on
        stop = signal.SIGTERM if isinstance(err, Terminated) else signal.SIGINT
        print("terminated" if stop == signal.SIGTERM else "interrupted", file=sys.stderr)
        return 128 + stop
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(argv: list[str]) -> int:
    """:func:`run_command`'s command, its bad input and failures as one line."""
    from .players import PlayerSpecError
    try:
        # The command's name, unless an option of aluette itself comes first.
        parser = build_parser(argv[0] if argv and not argv[0].startswith("-") else None)
        if not argv:  # the bare command: show what it can do
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        args = parser.parse_args(argv)
        return args.run(args)
    except (UsageError, PlayerSpecError) as err:
        print(f"aluette: error: {printable(str(err))}", file=sys.stderr)
        return EXIT_USAGE
    except CommandFailed as err:
        print(f"aluette: error: {printable(str(err))}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as err:  # what the system refused (a full disk, a folder, rights)
        where = f"{err.filename}: " if err.filename else ""
        print(f"aluette: error: {printable(where + (err.strerror or str(err)))}",
              file=sys.stderr)
        return EXIT_FAILED


def main(argv: list[str] | None = None) -> int:
    """The ``aluette`` console script: :func:`run_command` of ``sys.argv[1:]``
    (or ``argv``)."""
    return run_command(sys.argv[1:] if argv is None else argv)
