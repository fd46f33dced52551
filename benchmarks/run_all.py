"""Every benchmark of the project, one after another (``make bench``).
Benchmarks print figures; none of them fails a build on wall-clock time."""

import pathlib
import runpy
import sys

HERE = pathlib.Path(__file__).parent
ORDER = ["bench_env.py", "bench_vector.py", "bench_players.py", "bench_search.py", "bench_train.py",
         "bench_expert_data.py", "bench_web.py", "bench_rllib.py"]
CEILING = HERE.parent.parent / "shared" / "bench" / "api_ceiling.py"

if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    if CEILING.exists():
        print(f"== PettingZoo API ceiling on this machine ({CEILING.name})")
        runpy.run_path(str(CEILING), run_name="__main__")
    for name in ORDER:
        path = HERE / name
        if path.exists():
            print(f"== {name}")
            sys.argv = [str(path)]
            runpy.run_path(str(path), run_name="__main__")
