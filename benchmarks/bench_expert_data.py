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

#: The worlds per decision timed: the loop's default (``data.worlds``) and fewer.
WORLDS = (144, 48)


def data_configs(positions: int) -> dict[int, DataConfig]:
    """The data settings timed, by worlds per decision (0: the warm-up's, which
    compiles and loads once, outside the timing)."""
    configs = {0: DataConfig(positions_per_shard=2, games_per_shard=1, num_deals=1, worlds=8)}
    for worlds in WORLDS:
        configs[worlds] = DataConfig(positions_per_shard=positions, games_per_shard=4,
                                     num_deals=1, worlds=worlds)
    return configs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=32)
    args = parser.parse_args(argv)
    configs = data_configs(args.positions)
    label_shard("ai", configs.pop(0), 0)
    for worlds, cfg in configs.items():
        start = time.perf_counter()
        n = len(label_shard("ai", cfg, 1)["best"])
        seconds = time.perf_counter() - start
        print(f"expert data, worlds={worlds}: {n / seconds:.2f} labelled positions/s "
              f"({seconds / n * 1000:.0f} ms each, self-play included; one process)")


if __name__ == "__main__":
    main()
