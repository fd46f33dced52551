"""How well the expert's belief reads the hidden hands: at every decision of
self-play deals, the share of its worlds' weight that puts each hidden card
with the seat that really holds it (or out of the deal), for each way of
weighing worlds, on the same decisions.

    python benchmarks/belief.py [--deals 100] [--seed 0] [--player ai] [--worlds 320]

``--player``: the player at all four seats (``ai``: the guiding policy itself,
the model of the other players is exact but for its uniform floor;
``heuristic``: another player than the model; ``--table``, its old name, is
read too). Uniform worlds are the baseline; ``trick`` is
``expert:version=4``'s belief (the plays of the trick in progress), ``deal``
``expert`` v5's (every play of the deal). Prints the mean over decisions by
trick (0-8) and overall, and the mean effective sample size of the deal
belief's draws.
"""

from __future__ import annotations

import argparse

import numpy as np

import aluette_env
from aluette_env.game import relative_seat
from aluette_env.players import load_player
from aluette_env.players.search import ExpertPlayer

BELIEFS = {"uniform": dict(belief=0.0), "trick": dict(infer="trick"),
           "deal": dict(infer="deal")}


def accuracy(holders: np.ndarray, weights: np.ndarray, truth: np.ndarray) -> float:
    """The weight-averaged share of the hidden cards each world places right."""
    hidden = holders[0] >= 0
    right = (holders[:, hidden] == truth[hidden][None, :]).mean(1)
    return float(weights @ right / weights.sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--player", "--table", dest="player", default="ai")
    ap.add_argument("--worlds", type=int, default=320)
    args = ap.parse_args()
    player = load_player(args.player, seed=args.seed)
    experts = {name: ExpertPlayer(version=5, worlds=args.worlds, seed=args.seed, **kw)
               for name, kw in BELIEFS.items()}
    scores = {name: [[] for _ in range(9)] for name in BELIEFS}
    ess = []
    env = aluette_env.raw_env(num_deals=1)
    for d in range(args.deals):
        env.reset(seed=args.seed * 100_003 + d)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            seat = env.deal.to_act
            o = env.observe(agent)
            truth = np.full(48, 4, np.int8)  # out of the deal unless a hand holds it
            for s in range(4):
                for c in env.deal.hands[s]:
                    truth[c] = relative_seat(s, seat)
            t = len(env.deal.tricks)
            experts["deal"].last_ess = 0.0
            for name, expert in experts.items():
                holders, weights = expert.sample_worlds(o["observation"], o["action_mask"])
                scores[name][t].append(accuracy(holders, weights, truth))
            if experts["deal"].last_ess > 0:  # the deal had plays of other seats to weigh
                ess.append(experts["deal"].last_ess)
            env.step(int(player.act_batch(o["observation"][None], o["action_mask"][None])[0]))
    print(f"belief accuracy: the share of hidden cards placed with their holder, "
          f"{args.deals} deals, seed {args.seed}, player {args.player}, {args.worlds} worlds")
    print("belief   " + " ".join(f"t{t:<5d}" for t in range(9)) + "  all")
    for name in BELIEFS:
        per = [np.mean(s) if s else float("nan") for s in scores[name]]
        every = np.mean([x for s in scores[name] for x in s])
        print(f"{name:8s} " + " ".join(f"{x:.4f}" for x in per) + f"  {every:.4f}")
    print(f"deal belief: mean effective sample size of the draws {np.mean(ess):.1f}")


if __name__ == "__main__":
    main()
