"""Every benchmark of the project, one after another (``make bench``), written to
``docs/BENCHMARKS.md``: one header line naming the machine and the date, then
each benchmark's figures under the exact command that produced them.
Benchmarks print figures; none of them fails a build on wall-clock time.

    python benchmarks/run_all.py [--out docs/BENCHMARKS.md] [--quick] [--only bench_env ...]

``--quick`` gives every benchmark a tiny budget (a smoke check of the scripts
and the page: its figures are rough, and the header says so); ``--out -``
prints the page instead of writing it; ``--only`` runs some benchmarks and
keeps the other sections of the page at ``--out`` as they are (the header says
which were measured again), or prints a page of those alone with ``--out -``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_OUT = ROOT / "docs" / "BENCHMARKS.md"

#: (script, title, arguments of a full run, arguments of a --quick run)
BENCHMARKS = [
    ("bench_env.py", "The AEC environment against the PettingZoo API ceiling",
     [], ["--seconds", "0.3"]),
    ("bench_vector.py", "The batched engine", [], ["--seconds", "0.2", "--profile-steps", "100"]),
    ("bench_players.py", "Players and duplicate evaluation", [],
     ["--moves", "2000", "--deals", "200"]),
    ("bench_search.py", "Solvers and search players", [], ["--positions", "2", "--moves", "36"]),
    ("belief.py", "How well the expert's belief reads the hidden hands", [],
     ["--deals", "2", "--worlds", "32"]),
    ("bench_train.py", "Self-play training (SB3 backend), end to end", ["--repeats", "2"],
     ["--rollouts", "1"]),
    ("bench_web.py", "The web game under load", [],
     ["--quick"]),
    ("bench_coach.py", "The coach: hints and deal reviews", [], ["--matches", "1"]),
    ("bench_expert_data.py", "Expert data: labelled positions per second", [],
     ["--positions", "8"]),
    ("bench_rllib.py", "The RLlib backend", [], ["--iterations", "1"]),
]


def machine() -> str:
    """One line: CPU model and count, OS, Python."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def command(script: str, args: list[str]) -> str:
    return " ".join(["python", f"benchmarks/{script}", *map(shlex.quote, args)])


def run(script: str, args: list[str]) -> str:
    """The benchmark's output as markdown: its tables as printed, or, for a
    benchmark that prints plain text, that text in a code block."""
    proc = subprocess.run([sys.executable, str(HERE / script), *args], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    out = proc.stdout.strip()
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return (f"```text\n{out}\n```\n\n" if out else "") + \
            f"Failed (exit code {proc.returncode}): `{tail}`"
    if any(line.startswith("|") for line in out.splitlines()):
        return out
    return f"```text\n{out}\n```"


def section(script: str, title: str, args: list[str]) -> str:
    return f"## {title}\n\n`{command(script, args)}`\n\n{run(script, args)}\n"


def sections(page: str) -> dict[str, str]:
    """A page written by :func:`main`: its sections by title (each as
    :func:`section` wrote it) and, under '', its header line without the
    notes of earlier partial runs."""
    head, *rest = page.split("\n## ")
    found = {"": head.removeprefix("# Benchmarks").strip().split(" Since then ")[0]}
    for text in rest:
        title = text.split("\n", 1)[0]
        found[title] = f"## {text.rstrip()}\n"
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="the page to write ('-': print)")
    parser.add_argument("--quick", action="store_true", help="tiny budgets: a smoke check")
    parser.add_argument("--only", nargs="+", metavar="NAME", default=None,
                        help="run only these benchmarks (e.g. bench_env)")
    args = parser.parse_args(argv)
    names = [script.removesuffix(".py") for script, *_ in BENCHMARKS]
    unknown = sorted(set(args.only or []) - set(names))
    if unknown:
        parser.error(f"--only: unknown benchmark {', '.join(unknown)}; known: {', '.join(names)}")
    out = None if args.out == "-" else Path(args.out)
    budget = "tiny budgets (`--quick`): rough figures" if args.quick else "full budgets"
    header = (f"Measured on {machine()}, {datetime.date.today().isoformat()}; {budget}. "
              f"Written by `make bench` (`python benchmarks/run_all.py`).")
    kept = sections(out.read_text()) if args.only and out is not None and out.is_file() else {}
    if kept:
        header = (f"{kept.get('', header)} Since then `{'`, `'.join(args.only)}` measured again "
                  f"on {machine()}, {datetime.date.today().isoformat()}; {budget}.")
    parts = [f"# Benchmarks\n\n{header}\n"]
    for script, title, full, quick in BENCHMARKS:
        name = script.removesuffix(".py")
        if args.only and name not in args.only:
            if title in kept:
                parts.append(kept[title])
            continue
        print(f"== {script}", file=sys.stderr, flush=True)
        parts.append(section(script, title, quick if args.quick else full))
    page = "\n".join(parts)
    if out is None:
        print(page)
    else:
        out.write_text(page)
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
