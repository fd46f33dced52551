"""The strength tables (``make strength``): duplicate evaluations of the
project's players against each other. The full table goes to
``docs/STRENGTH.md``; a short one (the rows of ``SHORT``, and the versions of
``ai`` and ``expert`` it measured) replaces the README's section between
``<!-- strength:begin -->`` and ``<!-- strength:end -->``: nothing else goes in it.

    python benchmarks/strength.py [--deals 10000] [--seed 0] [--jobs 1]
                                  [--out docs/STRENGTH.md] [--readme README.md]
                                  [--only SPEC ...]

``--out -`` prints the page instead, ``--readme -`` leaves the README alone.
The page's "Panel" section (between ``<!-- panel:begin -->`` and
``<!-- panel:end -->``, measured with ``aluette eval --panel``) is kept as it is.
``--only SPEC`` (repeatable) plays only the pairings one of whose teams is
SPEC, and keeps every other row as the page at ``--out`` has it (same pairs,
same seed): after a new ``ai``, ``--only ai`` measures what changed. A pairing
neither played nor on the page is left out with a printed note.
Search players (``expert``) play fewer pairs (tens of ms of CPU a move): their
rows' own counts, or ``--deals`` when that is smaller. ``--jobs N`` plays each
pairing's matches in N processes (``aluette eval --jobs N``: the same figures
as one process; the expert rows take most of the time). A pairing whose player
spec does not load here is skipped with a printed note, and its row left out.
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from aluette_env.evaluation import duplicate_eval
from aluette_env.players import PlayerSpecError, load_player

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- strength:begin -->", "<!-- strength:end -->"
PANEL_BEGIN, PANEL_END = "<!-- panel:begin -->", "<!-- panel:end -->"

#: (team A, team B, pairs: None = --deals, else at most that many: search players are slow).
PAIRINGS = [
    ("ai", "ai:version=4", None),
    ("ai", "ai:version=3", None),
    ("ai", "ai:version=2", None),
    ("ai", "ai:version=1", None),
    ("ai:version=2", "ai:version=1", None),
    ("ai", "heuristic", None),
    ("ai", "heuristic:version=1", None),
    ("ai", "random", None),
    ("ai:version=1", "heuristic", None),
    ("ai:version=1", "heuristic:version=1", None),
    ("ai:version=1", "random", None),
    ("heuristic", "heuristic:version=1", None),
    ("heuristic", "random", None),
    ("heuristic:version=1", "random", None),
    # expert: tens of ms of CPU a move, so fewer pairs. The fast policy against the
    # search of its time, the search that reads the whole deal against the one that
    # reads the trick, and each search against the policies and bots.
    ("ai", "expert:version=4", 1000),
    ("ai:version=4", "expert:version=1", 1000),
    ("expert", "expert:version=5", 400),
    ("expert:version=5", "expert:version=4", 1000),
    ("expert:version=4", "expert:version=1", 1000),
    ("expert", "ai", 400),
    ("expert:version=4", "ai:version=4", 400),
    ("expert:version=4", "ai:version=1", 400),
    ("expert:version=4", "heuristic", 300),
    ("expert:version=4", "random", 100),
    # OpenSpiel's ISMCTSBot (the [openspiel] extra), an external search at two budgets:
    # tens to hundreds of ms of CPU a move in Python.
    ("ismcts:simulations=25", "heuristic", 200),
    ("ismcts:simulations=25", "ai:version=4", 200),
    ("ismcts:simulations=25", "pimc", 200),
    ("ismcts:simulations=100", "heuristic", 60),
    ("ismcts:simulations=100", "ai:version=4", 60),
    ("ismcts:simulations=100", "pimc", 60),
]
#: The README's short table: one row per step of the ladder.
SHORT = [("expert", "ai"), ("ai", "ai:version=4"), ("ai", "heuristic"),
         ("heuristic", "random")]
HEAD = ("| team A | team B | deal pairs | points per deal (A − B) [95 % CI] | deal win rate | "
        "match win / draw / loss |\n|---|---|---|---|---|---|")


def loads(spec: str) -> str | None:
    """None if ``spec`` loads here, else why not (one line)."""
    try:
        load_player(spec)
    except PlayerSpecError as err:
        return str(err)
    return None


def fmt(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def row(a: str, b: str, n: int, seed: int, jobs: int = 1) -> tuple[str, str]:
    """(the table row, a log line) of one pairing, in ``jobs`` processes."""
    t0 = time.perf_counter()
    res = duplicate_eval(a, b, deals=n, seed=seed, jobs=jobs)
    lo, hi = res.points_per_deal_ci95
    line = (f"{a} vs {b}: {res.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}] over {n:,} pairs "
            f"({time.perf_counter() - t0:.0f} s)")
    bold = "**" if lo > 0 or hi < 0 else ""
    return (f"| `{a}` | `{b}` | {n:,} | {bold}{fmt(res.points_per_deal)}{bold} "
            f"[{fmt(lo)}, {fmt(hi)}] | {res.deal_win_rate:.3f} | "
            f"{res.match_win_rate:.3f} / {res.match_draw_rate:.3f} / "
            f"{res.match_loss_rate:.3f} |"), line


def kept_rows(page_text: str, seed: int) -> dict[tuple[str, str, int], str]:
    """The rows of a page written by :func:`page`, by (team A, team B, pairs); none
    when the page is of another seed."""
    intro = page_text.split("|", 1)[0]  # the text above the table
    if f"seed {seed}:" not in intro:
        return {}
    found = {}
    for line in page_text.splitlines():
        m = re.match(r"\| `([^`]+)` \| `([^`]+)` \| ([\d,]+) \|", line)
        if m:
            found[m[1], m[2], int(m[3].replace(",", ""))] = line
    return found


def rows(deals: int, seed: int, jobs: int = 1, log=print, only: list[str] | None = None,
         kept: dict[tuple[str, str, int], str] | None = None) -> dict[tuple[str, str], str]:
    """A markdown table row per pairing that loads here, by (team A, team B), in
    :data:`PAIRINGS`' order. Each pairing is played by ``jobs`` processes
    (``duplicate_eval(jobs=...)``: the same result as one), except those with
    ``random`` or ``ismcts``, whose draws would depend on the split: one process,
    as ``aluette eval`` plays them. With ``only``, a pairing none of whose teams
    is in it takes its row from ``kept`` (:func:`kept_rows`), or is left out."""
    done: dict[tuple[str, str], str] = {}
    for a, b, pairs in PAIRINGS:
        n = min(pairs, deals) if pairs else deals
        if only is not None and a not in only and b not in only:
            if (a, b, n) in (kept or {}):
                done[a, b] = kept[a, b, n]
            else:
                log(f"note: left out {a} vs {b}: not on the page and not asked for by --only")
            continue
        why = loads(a) or loads(b)
        if why:
            log(f"note: skipped {a} vs {b}: {why}")
            continue
        draws = {"random", "ismcts"} & {a.split(":")[0], b.split(":")[0]}
        done[a, b], line = row(a, b, n, seed, 1 if draws else jobs)
        log(line)
    return done


def kept_panel(page_text: str) -> str:
    """The page's Panel section, markers included, to put back after the table; ''
    when it has none."""
    m = re.search(re.escape(PANEL_BEGIN) + ".*?" + re.escape(PANEL_END), page_text, re.DOTALL)
    return f"\n{m[0]}\n" if m else ""


def page(table: dict[tuple[str, str], str], seed: int) -> str:
    from aluette_env.players.search import VERSIONS
    LATEST_VERSION, LATEST = shipped()
    latest = VERSIONS[LATEST]
    return (f"# Strength\n\nDuplicate evaluation of every pair of the project's players, "
            f"seed {seed}: each row is `aluette eval --team-a A --team-b B --deals PAIRS "
            f"--seed {seed}`. Written by `make strength` (`python benchmarks/strength.py`).\n\n"
            f"Points per deal are team A's minus team B's, over deal pairs (every deal played "
            f"twice with the same hands, the teams swapping seats), with a 95 % confidence "
            f"interval; **bold**: the interval excludes 0. `ai` is the shipped policy "
            f"v{LATEST_VERSION}, `:version=N` the earlier ones, `heuristic` the rule-based "
            f"player v2 (`heuristic:version=1` the first), `expert` the search (version "
            f"{LATEST}) guided by `{latest.policy}` over {latest.worlds} worlds weighed by "
            f"every play of the deal, `expert:version=4` the same search weighing the plays "
            f"of the trick in progress only, and `expert:version=1` the search as first "
            f"shipped, guided by `ai:version=2` over 144. `ismcts:simulations=N` is "
            f"OpenSpiel's ISMCTSBot (Information Set MCTS, random rollouts, N iterations a "
            f"move) on the game `python_aluette`; its CPU per move is in "
            f"[ECOSYSTEM.md](ECOSYSTEM.md#ismcts).\n\n"
            f"{HEAD}\n" + "\n".join(table.values()) + "\n")


def shipped() -> tuple[int, int]:
    """The versions that ``ai`` and ``expert`` name here: what a run measures."""
    from aluette_env.players.onnx_policy import LATEST_VERSION
    from aluette_env.players.search import LATEST
    return LATEST_VERSION, LATEST


#: The line under the README's table, as :func:`short` writes it.
SHORT_NOTE = ("Seed {seed}, measured with `ai` v{ai} and `expert` version {expert}; bold: the "
              "95 % CI excludes 0. Every pairing: [docs/STRENGTH.md](docs/STRENGTH.md). "
              "Regenerate both with `make strength`.")


def short(table: dict[tuple[str, str], str], seed: int, measured: tuple[int, int]) -> str:
    """The README's section: the rows of :data:`SHORT`, then which ``ai`` and
    ``expert`` they measured (``measured``: their versions, :func:`shipped`)."""
    lines = [table[pair] for pair in SHORT if pair in table]
    ai, expert = measured
    return f"{HEAD}\n" + "\n".join(lines) + "\n\n" + SHORT_NOTE.format(seed=seed, ai=ai,
                                                                      expert=expert)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10000, help="deal pairs per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes playing each pairing's matches (default 1)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "STRENGTH.md"),
                        help="the page of every pairing ('-': print it)")
    parser.add_argument("--readme", default=str(ROOT / "README.md"),
                        help="the file whose marked section gets the short table ('-': none)")
    parser.add_argument("--only", action="append", metavar="SPEC",
                        help="play only the pairings with this player (repeatable); keep the "
                             "other rows of the page at --out")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals: at least 1 (got {args.deals})")
    if not 1 <= args.jobs <= 64:
        parser.error(f"--jobs: from 1 to 64 (got {args.jobs})")
    readme = None if args.readme == "-" else Path(args.readme)
    if readme is not None and (BEGIN not in readme.read_text() or END not in readme.read_text()):
        parser.error(f"{readme}: no {BEGIN} ... {END} section to rewrite")
    kept = None
    if args.only:
        for spec in args.only:
            if why := loads(spec):
                parser.error(f"--only {spec}: {why}")
        if args.out == "-" or not Path(args.out).is_file():
            parser.error("--only keeps the other rows of the page at --out: give an existing "
                         "page")
        kept = kept_rows(Path(args.out).read_text(), args.seed)
        if not kept:
            parser.error(f"--only: {args.out} has no rows of seed {args.seed} to keep")
    table = rows(args.deals, args.seed, args.jobs, only=args.only, kept=kept)
    if args.out == "-":
        print(page(table, args.seed))
    else:
        out = Path(args.out)
        panel = kept_panel(out.read_text()) if out.is_file() else ""
        out.write_text(page(table, args.seed) + panel)
        print(f"wrote {args.out}")
    if readme is not None:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END),
                      lambda m: f"{BEGIN}\n{short(table, args.seed, shipped())}\n{END}",
                      readme.read_text(),
                      flags=re.DOTALL)
        readme.write_text(text)
        print(f"rewrote the short strength table in {readme}")


if __name__ == "__main__":
    main()
