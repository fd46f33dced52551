"""The search's belief network: where each card the deciding seat has not seen
is (the seat on its left, its partner, the seat on its right, or out of the
deal), read from that seat's observation alone: the neural card-location
sampling of Solinas, Rebstock, Sturtevant & Buro 2019 (arXiv 1903.09604),
trained supervised.

Data from the batched engine (:mod:`training.search_nets`): many deals at once,
the guide at every seat, each play drawn from its probabilities mixed with
any legal card alike (``--explore``, 0.3: the positions and the players it
models spread, so that it reads players other than the guide; mostly the
guide's own card, ``--greedy``, placed the cards of other players worse); at
``--per-deal`` decisions drawn per deal, the
deciding seat's observation (it holds the whole order of play) and each
card's true place relative to that seat (:func:`true_places`). An MLP gives
48 x 4 logits; the loss is the cross-entropy of the hidden cards' true places
(the seat's hand and the played cards are masked out). Exported as ONNX:
input ``observation`` (float32 [batch, OBS_SIZE]), output ``places`` (float32
[batch, 48, 4], log-probabilities over relative seats 1, 2, 3 and out of the
deal); the held-out log-likelihood per hidden card, beside uniform's, is
printed and written in the model's metadata.

    python -m training.belief_net --deals 300000 --per-deal 8 --hidden 512 --epochs 3 \
        --seed 0 --out aluette_env/models/aluette-belief-v1.onnx

(the shipped network: 7.9 CPU-minutes, 3.8 GB of memory; docs/SEARCH.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .search_nets import GUIDE, export_onnx, guided_cards, guided_deals, out_of_bounds

#: Places of a hidden card, relative to the deciding seat: seats 1, 2, 3 (index
#: 0-2) and out of the deal (3). A card the seat has seen is SEEN.
PLACES, OUT, SEEN = 4, 3, -1


def true_places(card_state: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """[N, 48] int8: each card's place (0-2: relative seat 1-3 holds it, OUT: out
    of the deal) as seen from ``seat`` [N], SEEN for a card in its hand or
    played, from the engine's location codes ``card_state`` [N, 48]."""
    from aluette_env.game.state import UNUSED
    rel = (card_state.astype(np.int64) - seat[:, None]) & 3
    held = (card_state < UNUSED) & (rel > 0)
    return np.where(held, rel - 1, np.where(card_state == UNUSED, OUT, SEEN)).astype(np.int8)


def generate(deals: int, seed: int, guide: str = GUIDE, per_deal: int = 6,
             batch: int = 4096, explore: float = 0.3, greedy: float = 0.0
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations [N, OBS_SIZE] int8, true places [N, 48] int8, deal [N]) at
    ``per_deal`` decisions drawn from each of ``deals`` deals of ``guide`` at
    every seat: each play the guide's own card with probability ``greedy``,
    else drawn from its probabilities mixed with any legal card by ``explore``."""
    from aluette_env.observation import OBS_SIZE
    from aluette_env.players import load_player

    policy = load_player(guide)
    n_rows = deals * per_deal
    obs = np.zeros((n_rows, OBS_SIZE), np.int8)
    places = np.zeros((n_rows, 48), np.int8)
    deal = np.zeros(n_rows, np.int64)
    first = row = 0
    for game, rng in guided_deals(deals, seed, batch):
        n = game.num_games
        picked = rng.random((n, 36)).argsort(1) < per_deal  # the steps each deal records
        for step in range(36):
            rows = np.flatnonzero(picked[:, step])
            end = row + len(rows)
            obs[row:end] = game.obs[rows]
            places[row:end] = true_places(game.state.card_state[rows], game.state.to_act[rows])
            deal[row:end] = first + rows
            row = end
            own, drawn = guided_cards(policy, game, rng, explore)
            game.step(np.where(rng.random(n) < greedy, own, drawn))
        first += n
    return obs, places, deal


def network(width: int, hidden: int):
    """An MLP (two hidden ReLU layers) from an observation to [48, PLACES]
    log-probabilities."""
    import torch
    return torch.nn.Sequential(torch.nn.Linear(width, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                               torch.nn.Linear(hidden, 48 * PLACES),
                               torch.nn.Unflatten(1, (48, PLACES)), torch.nn.LogSoftmax(-1))


def fit(obs: np.ndarray, places: np.ndarray, rows: np.ndarray, seed: int, hidden: int = 256,
        epochs: int = 4, batch: int = 1024, lr: float = 1e-3):
    """:func:`network` fitted to ``rows`` of the data by the cross-entropy of the
    hidden cards' places, with Adam and a cosine schedule."""
    import torch
    torch.manual_seed(seed)
    net = network(obs.shape[1], hidden)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * -(-len(rows) // batch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = rows[torch.randperm(len(rows), generator=gen).numpy()]
        for i in range(0, len(rows), batch):
            idx = np.sort(order[i:i + batch])
            x = torch.from_numpy(obs[idx].astype(np.float32))
            y = torch.from_numpy(places[idx].astype(np.int64))
            loss = torch.nn.functional.nll_loss(net(x).view(-1, PLACES), y.view(-1),
                                                ignore_index=SEEN)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    return net.eval()


def log_places(model, obs: np.ndarray, batch: int = 8192) -> np.ndarray:
    """[N, 48, 4] the log-probabilities of :func:`network` ``model``."""
    import torch
    out = []
    with torch.no_grad():
        for i in range(0, len(obs), batch):
            out.append(model(torch.from_numpy(obs[i:i + batch].astype(np.float32))).numpy())
    return np.concatenate(out)


def held_out_report(logp: np.ndarray, places: np.ndarray) -> dict[str, float]:
    """Mean log-likelihood per hidden card (nats) of the true places under the
    network and under uniform (each place's share of the position's hidden cards)."""
    hidden = places >= 0
    rows, cards = np.nonzero(hidden)
    net = logp[rows, cards, places[rows, cards]]
    sizes = np.stack([(places == k).sum(1) for k in range(PLACES)], 1)
    uniform = np.log(sizes[rows, places[rows, cards]] / hidden.sum(1)[rows])
    return {"positions": int(len(places)), "network": float(net.mean()),
            "uniform": float(uniform.mean()), "gain": float((net - uniform).mean())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--guide", default=GUIDE)
    parser.add_argument("--per-deal", type=int, default=8,
                        help="decisions recorded per deal (1-36)")
    parser.add_argument("--explore", type=float, default=0.3,
                        help="share of each play drawn from any legal card alike")
    parser.add_argument("--greedy", type=float, default=0.0,
                        help="share of the plays that are the guide's own card")
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    bad = out_of_bounds("belief_net", (("deals", args.deals, 20, 10_000_000),
                                       ("per-deal", args.per_deal, 1, 36),
                                       ("hidden", args.hidden, 8, 4096),
                                       ("epochs", args.epochs, 1, 1000)))
    if bad:
        print(bad, file=sys.stderr)
        return 2
    import aluette_env
    from aluette_env.observation import LAYOUT_KEY, OBS_LAYOUT, OBS_SIZE
    start = time.process_time()
    for name, value in (("explore", args.explore), ("greedy", args.greedy)):
        if not 0 <= value <= 1:
            print(f"belief_net: --{name} must be a number from 0 to 1, got {value}",
                  file=sys.stderr)
            return 2
    obs, places, deal = generate(args.deals, args.seed, args.guide, args.per_deal,
                                 explore=args.explore, greedy=args.greedy)
    made = time.process_time() - start
    held = np.random.default_rng(args.seed).random(args.deals) < 0.05  # whole deals
    if not held.any():  # a tiny run: one all the same
        held[0] = True
    test = held[deal]
    net = fit(obs, places, np.flatnonzero(~test), args.seed, args.hidden, args.epochs)
    report = held_out_report(log_places(net, obs[test]), places[test])
    total = time.process_time() - start
    meta = {"kind": "aluette-belief", LAYOUT_KEY: str(OBS_LAYOUT),
            "obs_size": str(OBS_SIZE), "project_version": aluette_env.__version__,
            "guide": args.guide, "deals": str(args.deals), "per_deal": str(args.per_deal),
            "explore": str(args.explore), "greedy": str(args.greedy),
            "seed": str(args.seed), "hidden": str(args.hidden), "epochs": str(args.epochs),
            "positions": str(len(obs)), "held_out": json.dumps(report)}
    export_onnx(net, args.out, OBS_SIZE, ("observation", "places"), meta)
    print(f"{len(obs)} positions from {args.deals} deals ({made:.0f} CPU-s), fitted and "
          f"exported in {total:.0f} CPU-s: {args.out}")
    print(f"held out ({report['positions']} positions): {report['network']:+.4f} nats per "
          f"hidden card, uniform {report['uniform']:+.4f}, gain {report['gain']:+.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
