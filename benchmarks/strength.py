"""The README strength table (``make strength``): duplicate evaluations of the
project's players against each other, written between the README's
``<!-- strength:begin -->`` and ``<!-- strength:end -->`` markers.

    python benchmarks/strength.py [--deals 10000] [--seed 0] [--readme README.md]

A pairing whose player spec does not load here (a player not built yet, such as
``expert`` or ``heuristic:version=1`` on an older checkout) is skipped with a
printed note, and its row left out of the table.
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

#: (team A, team B, pairs: None = --deals, else that many: search players are slow).
PAIRINGS = [
    ("ai", "ai:version=1", None),
    ("ai", "heuristic", None),
    ("ai", "heuristic:version=1", None),
    ("ai", "random", None),
    ("ai:version=1", "heuristic", None),
    ("ai:version=1", "heuristic:version=1", None),
    ("ai:version=1", "random", None),
    ("heuristic", "heuristic:version=1", None),
    ("heuristic", "random", None),
    ("heuristic:version=1", "random", None),
    # expert: about 35 ms a move, so fewer pairs (the first row is its target).
    ("expert", "ai:version=1", 1000),
    ("expert", "ai", 400),
    ("expert", "heuristic", 300),
    ("expert", "random", 100),
]


def loads(spec: str) -> str | None:
    """None if ``spec`` loads here, else why not (one line)."""
    try:
        load_player(spec)
    except PlayerSpecError as err:
        return str(err)
    return None


def fmt(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def table(deals: int, seed: int, log=print) -> str:
    rows = []
    for a, b, pairs in PAIRINGS:
        why = loads(a) or loads(b)
        if why:
            log(f"note: skipped {a} vs {b}: {why}")
            continue
        n = pairs or deals
        t0 = time.perf_counter()
        res = duplicate_eval(a, b, deals=n, seed=seed)
        lo, hi = res.points_per_deal_ci95
        log(f"{a} vs {b}: {res.points_per_deal:+.3f} [{lo:+.3f}, {hi:+.3f}] over {n:,} pairs "
            f"({time.perf_counter() - t0:.0f} s)")
        bold = "**" if lo > 0 or hi < 0 else ""
        rows.append(f"| `{a}` | `{b}` | {n:,} | {bold}{fmt(res.points_per_deal)}{bold} "
                    f"[{fmt(lo)}, {fmt(hi)}] | {res.deal_win_rate:.3f} | "
                    f"{res.match_win_rate:.3f} / {res.match_draw_rate:.3f} / "
                    f"{res.match_loss_rate:.3f} |")
    head = (f"Duplicate evaluation, seed {seed} (`aluette eval --team-a A --team-b B "
            f"--deals PAIRS --seed {seed}`; bold: the 95 % CI excludes 0; `ai` is v2 and "
            f"`heuristic` v2, `:version=1` their first versions). Regenerate with "
            f"`make strength`.\n\n"
            "| team A | team B | deal pairs | points per deal (A − B) [95 % CI] | "
            "deal win rate | match win / draw / loss |\n|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10000, help="deal pairs per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--readme", default=str(ROOT / "README.md"),
                        help="the file whose marked section is rewritten ('-': print only)")
    args = parser.parse_args(argv)
    text = table(args.deals, args.seed)
    if args.readme == "-":
        print(text)
        return
    path = Path(args.readme)
    old = path.read_text()
    if BEGIN not in old or END not in old:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} section to rewrite")
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END),
                 lambda m: f"{BEGIN}\n{text}\n{END}", old, flags=re.S)
    path.write_text(new)
    print(f"rewrote the strength table in {path}")


if __name__ == "__main__":
    main()
