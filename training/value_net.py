"""The search's value network (``expert:depth=N``): what the rest of a deal is
worth from a fully known position at the start of a trick, if every seat plays
the guiding policy from its own view (``aluette_env.players.search.value``).

Data from the batched engine: many deals at once, every seat playing the guide;
until a trick drawn per deal (1 to 8) each play is drawn from the guide's
probabilities (or, one time in ten, any legal card), so the positions spread
the way a search's worlds and candidate plays do; from that trick on every seat
plays the guide's own card, as a rollout does, and each trick start from then
on is labelled with the deal's result for the leading team. A small MLP learns
that mean (squared error), and is exported as ONNX (input ``features``, output
``value``); the held-out error by trick is printed and written in the model's
metadata.

    python -m training.value_net --seed 0 \
        --out aluette_env/models/aluette-value-v1.onnx
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .search_nets import GUIDE, export_onnx, guided_cards, guided_deals, out_of_bounds


def generate(deals: int, seed: int, guide: str = GUIDE, batch: int = 4096,
             explore: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features [N, VALUE_WIDTH] float32, value for the leading team [N] float32,
    trick index [N]) from ``deals`` deals of ``guide`` at every seat."""
    from aluette_env.players import load_player
    from aluette_env.players.search.value import VALUE_WIDTH, write_features
    from aluette_env.vector.kernels import kernel_view

    policy = load_player(guide)
    xs, ys, ts = [], [], []
    for game, rng in guided_deals(deals, seed, batch):
        n = game.num_games
        st = kernel_view(game.state)
        switch = rng.integers(1, 9, n)
        feats = np.zeros((n, VALUE_WIDTH), np.float32)
        rows_x, rows_game, rows_lead, rows_t = [], [], [], []
        for step in range(36):
            t, n_in = divmod(step, 4)
            if n_in == 0 and t >= 1:
                write_features(st, n, feats)
                keep = np.flatnonzero(t >= switch)
                rows_x.append(feats[keep].copy())
                rows_game.append(keep)
                rows_lead.append(game.state.leader[keep].astype(np.int64))
                rows_t.append(np.full(len(keep), t, np.int8))
            greedy, drawn = guided_cards(policy, game, rng, explore)
            actions = np.where(t >= switch, greedy, drawn)
            game.step(actions)
        points = game.results.points.astype(np.float32)
        gain0 = points[:, 0] - points[:, 1]
        for x, g, lead, tt in zip(rows_x, rows_game, rows_lead, rows_t):
            xs.append(x)
            ys.append(np.where(lead % 2 == 0, gain0[g], -gain0[g]).astype(np.float32))
            ts.append(tt)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ts)


def fit(x: np.ndarray, y: np.ndarray, seed: int, hidden: int = 256, epochs: int = 12,
        batch: int = 2048, lr: float = 1e-3):
    """A two-layer MLP (ReLU) fitted to ``y`` by squared error with Adam."""
    import torch
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, 1))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        order = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(xt), batch):
            idx = order[i:i + batch]
            loss = torch.nn.functional.mse_loss(net(xt[idx]).squeeze(1), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    return net.eval()


def predict(net, x: np.ndarray) -> np.ndarray:
    import torch
    with torch.no_grad():
        return net(torch.from_numpy(x)).squeeze(1).numpy()


def by_trick(pred: np.ndarray, y: np.ndarray, t: np.ndarray) -> dict[int, dict[str, float]]:
    """Per trick index (0-8, the trick about to start): positions, mean error
    (bias), root mean squared error, and the RMSE of the trick's mean value
    (what a network that knew nothing would get)."""
    out = {}
    for k in np.unique(t):
        m = t == k
        out[int(k)] = {"n": int(m.sum()), "bias": float((pred[m] - y[m]).mean()),
                       "rmse": float(np.sqrt(((pred[m] - y[m]) ** 2).mean())),
                       "rmse_mean": float(y[m].std())}
    return out


def export(net, path: Path, meta: dict[str, str]) -> None:
    from aluette_env.players.search.value import VALUE_WIDTH
    export_onnx(net, path, VALUE_WIDTH, ("features", "value"), meta, _squeeze_value)


def _squeeze_value(model) -> None:
    """One value a row: the last axis of size 1 squeezed in the graph itself."""
    import onnx
    last = model.graph.output[0].name
    axes = onnx.helper.make_tensor("squeeze_axes", onnx.TensorProto.INT64, [1], [1])
    model.graph.initializer.append(axes)
    model.graph.node[-1].output[0] = "value_2d"
    model.graph.node.append(onnx.helper.make_node("Squeeze", ["value_2d", "squeeze_axes"],
                                                  [last]))
    del model.graph.output[0].type.tensor_type.shape.dim[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=400_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--guide", default=GUIDE, help="the policy every seat plays")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    bad = out_of_bounds("value_net", (("deals", args.deals, 100, 10_000_000),
                                      ("seed", args.seed, 0, 2 ** 32 - 1),
                                      ("hidden", args.hidden, 8, 4096),
                                      ("epochs", args.epochs, 1, 1000)))
    if bad:
        print(bad, file=sys.stderr)
        return 2
    from aluette_env.players import PlayerSpecError, load_player
    try:
        load_player(args.guide)
    except (PlayerSpecError, ValueError) as err:
        print(f"value_net: --guide: {err}", file=sys.stderr)
        return 2
    start = time.process_time()
    x, y, t = generate(args.deals, args.seed, args.guide)
    made = time.process_time() - start
    rng = np.random.default_rng(args.seed)
    held = rng.random(len(x)) < 0.05
    net = fit(x[~held], y[~held], args.seed, args.hidden, args.epochs)
    report = by_trick(predict(net, x[held]), y[held], t[held])
    total = time.process_time() - start
    meta = {"kind": "aluette-value", "guide": args.guide, "deals": str(args.deals),
            "seed": str(args.seed), "positions": str(len(x)),
            "held_out_by_trick": json.dumps(report)}
    export(net, args.out, meta)
    print(f"{len(x)} positions from {args.deals} deals ({made:.0f} CPU-s), fitted and "
          f"exported in {total:.0f} CPU-s: {args.out}")
    print("| trick | held-out positions | bias | RMSE | RMSE of the trick's mean |")
    print("|---:|---:|---:|---:|---:|")
    for k, r in report.items():  # trick index k is the (k + 1)-th trick
        print(f"| {k + 1} | {r['n']} | {r['bias']:+.3f} | {r['rmse']:.3f} | {r['rmse_mean']:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
