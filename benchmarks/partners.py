"""The partner matrix (``make partners``): candidates × partners, coloured by lift.

Each candidate X sits at ``player_2`` beside each partner P of the partner
panel at ``player_0`` (the person's seat), against two copies of ``--opponent``,
on the same deals (:func:`aluette_env.evaluation.partner_eval`). The picture
(``--png``) colours each cell by X's lift over the reference partner; the
markdown printed (or written to ``--out``) holds the same matrix as a table,
with each cell's team points, and a second table of how team A's tricks split
(:class:`aluette_env.evaluation.Split`).

    python benchmarks/partners.py [--candidates ai,ai:version=4,heuristic]
        [--partners P1,P2,...] [--opponent ai] [--reference itself]
        [--deals 2000] [--seed 770077] [--png docs/partner_matrix.png]
        [--out -] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from aluette_env.evaluation import ITSELF, PARTNERS, partner_eval
from aluette_env.players import split_specs

ROOT = Path(__file__).resolve().parents[1]


def matrix_png(results: dict, path: Path, title: str) -> None:
    """A heat map of the lifts: a row per partner, a column per candidate."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    candidates = list(results)
    partners = list(next(iter(results.values())).rows)
    lift = np.array([[results[c].rows[p].lift for c in candidates] for p in partners])
    half = np.array([[(results[c].rows[p].lift_ci95[1] - results[c].rows[p].lift_ci95[0]) / 2
                      for c in candidates] for p in partners])
    bound = max(0.05, float(np.abs(lift).max()))
    fig, ax = plt.subplots(figsize=(1.8 + 1.7 * len(candidates), 0.9 + 0.55 * len(partners)))
    image = ax.imshow(lift, cmap="RdYlGn", vmin=-bound, vmax=bound, aspect="auto")
    for i in range(len(partners)):
        for j in range(len(candidates)):
            ax.text(j, i, f"{lift[i, j]:+.3f}\n±{half[i, j]:.3f}", ha="center", va="center",
                    fontsize=8)
    ax.set_xticks(range(len(candidates)), candidates, rotation=20, ha="right")
    ax.set_yticks(range(len(partners)), partners)
    ax.set_xlabel("candidate X (player_2)")
    ax.set_ylabel("partner P (player_0)")
    fig.colorbar(image, ax=ax, label="lift (points per deal)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def markdown(results: dict, command: str) -> str:
    candidates = list(results)
    partners = list(next(iter(results.values())).rows)
    any_res = next(iter(results.values()))
    ref = "the partner itself" if any_res.reference == ITSELF else f"`{any_res.reference}`"
    lines = [f"Team A's points per deal (lift over {ref} beside the same partner), "
             f"against two copies of `{any_res.opponent}`, {any_res.deals:,} deal pairs, "
             f"seed {any_res.seed}:", "", f"    {command}", "",
             "| partner P | " + " | ".join(f"X = `{c}`" for c in candidates) + " |",
             "|---|" + "---|" * len(candidates)]
    for p in partners:
        cells = [f"{results[c].rows[p].result.points_per_deal:+.3f} "
                 f"({results[c].rows[p].lift:+.3f})" for c in candidates]
        lines.append(f"| `{p}` | " + " | ".join(cells) + " |")
    lines.append("| minimum lift | " + " | ".join(
        f"{results[c].minimum.lift:+.3f} (`{results[c].minimum.partner}`)"
        for c in candidates) + " |")
    lines.append("| mean lift | " + " | ".join(f"{results[c].mean_lift:+.3f}"
                                              for c in candidates) + " |")
    lines += ["", "How team A's tricks split (shares of both tables' deals; overtakes and "
              "spoils: of the player's turns on its partner's winning card):", "",
              "| X | P | win | level | split losses | tie losses | P / X carries | "
              "stronger carries | X overtakes P | P overtakes X | X spoils P | P spoils X |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in candidates:
        for p in partners:
            s = results[c].rows[p].split
            lines.append(f"| `{c}` | `{p}` | {s.win_rate:.3f} | {s.level_rate:.3f} | "
                         f"{s.split_loss_rate:.3f} | {s.tie_loss_rate:.3f} | "
                         f"{s.partner_carries:.2f} / {s.candidate_carries:.2f} | "
                         f"{s.stronger_carries:.3f} | {s.candidate_overtakes:.3f} | "
                         f"{s.partner_overtakes:.3f} | {s.candidate_spoils:.3f} | "
                         f"{s.partner_spoils:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--candidates", default="ai,ai:version=4,heuristic")
    p.add_argument("--partners", default=",".join(PARTNERS))
    p.add_argument("--opponent", default="ai")
    p.add_argument("--reference", default=ITSELF)
    p.add_argument("--deals", type=int, default=2000)
    p.add_argument("--seed", type=int, default=770077)
    p.add_argument("--png", type=Path, default=None, help="write the heat map here")
    p.add_argument("--out", default="-", help="the markdown tables ('-': print them)")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    candidates = [c for c in split_specs(args.candidates) if c]
    partners = [q for q in split_specs(args.partners) if q]
    results = {}
    for c in candidates:
        results[c] = partner_eval(c, partners, opponent=args.opponent, reference=args.reference,
                                  deals=args.deals, seed=args.seed,
                                  progress=sys.stderr.isatty())
        print(f"{c}: mean lift {results[c].mean_lift:+.3f}, minimum "
              f"{results[c].minimum.lift:+.3f} ({results[c].minimum.partner})", file=sys.stderr)
    command = "python benchmarks/partners.py " + " ".join(sys.argv[1:] if argv is None else argv)
    text = markdown(results, command.strip())
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text)
    if args.png is not None:
        matrix_png(results, args.png, f"lift beside each partner, against {args.opponent}, "
                                      f"{args.deals:,} pairs, seed {args.seed}")
    if args.json is not None:
        args.json.write_text(json.dumps({c: r.to_json() for c, r in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
