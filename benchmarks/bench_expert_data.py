"""Expert data: labelled positions per second of one process (self-play
positions of ``ai`` labelled with the expert's value of every legal card,
``training.expert_iteration.label_shard``), at the loop's default 144 worlds
(``data.worlds``) and at 48. Multiply by ``data.workers`` for a machine with that
many free cores.

    python benchmarks/bench_expert_data.py [--positions 32]
"""

from __future__ import annotations

import argparse
import time

from training.expert_iteration import DataConfig, label_shard

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=32)
    args = parser.parse_args()
    label_shard("ai", DataConfig(positions_per_shard=2, games_per_shard=1, num_deals=1,
                                 worlds=8), 0)  # compiled and loaded once, outside the timing
    for worlds in (144, 48):
        cfg = DataConfig(positions_per_shard=args.positions, games_per_shard=4, num_deals=1,
                         worlds=worlds)
        start = time.perf_counter()
        n = len(label_shard("ai", cfg, 1)["best"])
        seconds = time.perf_counter() - start
        print(f"expert data, worlds={worlds}: {n / seconds:.2f} labelled positions/s "
              f"({seconds / n * 1000:.0f} ms each, self-play included; one process)")
