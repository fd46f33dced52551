"""How far the search's values at a depth limit (rollouts stopped after N tricks,
the value network after) are from rollouts to the end of the deal, on the
expert's own decisions, trick by trick.

Both searches draw the same worlds (a decision's worlds come from the seed and
the observation) and value every legal card (``card_values``); the figures are
the difference of each card's mean value over the worlds (depth-limited minus
rollouts to the end): its mean (the bias), its root mean square, and how often
both searches play the same card.

    python benchmarks/value_bias.py [--deals 40] [--seed 0] [--depth 1,2]
                                    [--expert expert:version=5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from aluette_env.players import load_player
from aluette_env.vector import VectorGame


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--depth", default="1,2", help="depth limits compared, comma-separated")
    parser.add_argument("--value", default="v1", help="the value network (v1 or a .onnx path)")
    parser.add_argument("--table", default="ai", help="the player at every seat")
    parser.add_argument("--expert", default="expert:version=5",
                        help="the search compared (version 5: guided by v4, whose rollouts "
                        "the value network v1 learned)")
    args = parser.parse_args(argv)
    depths = [int(d) for d in args.depth.split(",")]
    sep = "," if ":" in args.expert else ":"
    full = load_player(f"{args.expert}{sep}depth=0", seed=args.seed)
    limited = [load_player(f"{args.expert}{sep}depth={d},value={args.value}", seed=args.seed)
               for d in depths]
    table = load_player(args.table, seed=args.seed)
    game = VectorGame(1, num_deals=1, seed=args.seed)
    diffs: dict[int, dict[int, list[np.ndarray]]] = {d: {} for d in depths}
    same: dict[int, dict[int, list[bool]]] = {d: {} for d in depths}
    cpu = {d: 0.0 for d in [0, *depths]}
    for _ in range(args.deals):
        game.reset()
        for _step in range(36):
            obs, mask = game.obs[0], game.mask[0]
            t = int(game.state.trick_index[0])
            if mask.sum() > 1:
                start = time.process_time()
                ref = full.card_values(obs, mask)
                cpu[0] += time.process_time() - start
                if ref.worlds:
                    for d, player in zip(depths, limited):
                        start = time.process_time()
                        got = player.card_values(obs, mask)
                        cpu[d] += time.process_time() - start
                        diffs[d].setdefault(t, []).append(got.value - ref.value)
                        same[d].setdefault(t, []).append(got.best == ref.best)
            game.step(np.array([table.act(obs, mask)]))
    print(f"Depth-limited values against rollouts to the end, `{args.table}` at every seat, "
          f"{args.deals} deals, seed {args.seed}, value network {args.value}:\n")
    print("| depth | trick | decisions | bias | RMS difference | same card played |")
    print("|---:|---:|---:|---:|---:|---:|")
    for d in depths:
        for t in sorted(diffs[d]):
            x = np.concatenate(diffs[d][t])
            print(f"| {d} | {t + 1} | {len(diffs[d][t])} | {x.mean():+.3f} | "
                  f"{np.sqrt((x ** 2).mean()):.3f} | {np.mean(same[d][t]):.2f} |")
        x = np.concatenate([np.concatenate(v) for v in diffs[d].values()])
        s = np.concatenate([v for v in same[d].values()])
        print(f"| {d} | all | {len(s)} | {x.mean():+.3f} | {np.sqrt((x ** 2).mean()):.3f} | "
              f"{s.mean():.2f} |")
    print("\nCPU time of these searches (every legal card searched): "
          + ", ".join(f"depth {d or 'none (to the end)'}: {cpu[d]:.1f} s" for d in cpu))


if __name__ == "__main__":
    main()
