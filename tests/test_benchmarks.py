"""The benchmarks (benchmarks/, ``make bench``) keep running as the configs
change: every benchmark that builds a training config builds it here and has it
checked as ``aluette train`` (or ``aluette expert-iteration``) checks one;
nothing is timed or trained."""

import itertools
import json
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from training.config import load_config, load_loop_config

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = str(ROOT / "configs" / "default.yaml")
sys.path.insert(0, str(ROOT / "benchmarks"))  # the benchmarks are scripts, not a package

import bench_expert_data  # noqa: E402
import distill_labels  # noqa: E402
import distill_agreement  # noqa: E402
import pimc_predictors  # noqa: E402
import same_curve  # noqa: E402
import same_strength  # noqa: E402
import strength  # noqa: E402

# bench_rllib and bench_train (torch and SB3) are imported by the tests
# that use them: every parallel worker collects this file, one runs it.

#: The benchmarks checked below: each one that builds a training config.
CHECKED = {"bench_expert_data", "bench_rllib", "bench_train", "distill_agreement",
           "distill_labels", "same_curve", "same_strength"}


def test_every_benchmark_that_builds_a_training_config_is_checked_here():
    builds = re.compile(r"load_(loop_)?config\(|\b(Train|Loop|Data|Distill|PPOPhase)Config\b"
                        r"|\"aluette_env\", \"train\"")
    found = {p.stem for p in (ROOT / "benchmarks").glob("*.py") if builds.search(p.read_text())}
    assert found == CHECKED


def test_the_rllib_benchmark_trains_default_yaml_as_rllib_can_on_both_backends():
    """configs/default.yaml has what only SB3 has (the privileged critic, the belief
    head, the league's priorities), which RLlib refuses: both backends train it
    without them (docs/RLLIB.md), the same network and league."""
    import bench_rllib
    sb3, rllib = bench_rllib.bench_configs(DEFAULT)
    assert sb3.backend == "sb3" and sorted(rllib) == list(bench_rllib.RUNNERS)
    for runners, cfg in rllib.items():
        assert cfg.backend == "rllib" and cfg.rllib.num_env_runners == runners
        assert cfg.rllib.num_learners == 0
        assert cfg.network == sb3.network and cfg.selfplay == sb3.selfplay
    assert sb3.network.critic == "seat" and sb3.network.belief == 0 and sb3.selfplay.pfsp is None


@pytest.mark.parametrize("native", [False, True], ids=["emulated bfloat16", "native"])
def test_every_path_the_training_benchmark_times_is_a_valid_config(native):
    import bench_train
    paths = bench_train.timed_paths(DEFAULT, [], native)
    names = [name for name, _, _ in paths]
    assert len(set(names)) == len(names) and len(names) == (5 if not native else 8)
    for _, settings, _ in paths:
        load_config(DEFAULT, settings)
    # Last, the config's own path (its precision, the CPU's first layer), compiled.
    assert paths[-1][1:] == (["torch_compile=true"], None)
    if native:  # both ways of the bfloat16 first layer, the default (the gather) first
        assert [flag for _, _, flag in paths if flag is not None] == ["no", "yes"]


def test_the_curve_comparison_trains_a_valid_config_and_compares_all_but_the_clock(tmp_path):
    cfg = load_config(DEFAULT, same_curve.settings("before", tmp_path, 4_000_000, 1_000_000))
    assert (cfg.total_timesteps, cfg.eval.interval, cfg.seed) == (4_000_000, 1_000_000, 0)
    result = {"team_a": "before@1000", "team_b": "heuristic", "points_per_deal": -0.25475,
              "points_per_deal_ci95": [-0.277, -0.232]}
    record = {"timesteps": 1000, "wall_time_s": 79.0, "eval_seconds": 10.1,
              "results": {"heuristic": result}}
    other = {**record, "wall_time_s": 80.5, "eval_seconds": 7.2,
             "results": {"heuristic": {**result, "team_a": "after@1000"}}}
    paths = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    for path, r in zip(paths, (record, other)):
        path.write_text(json.dumps(r) + "\n")
    assert same_curve.compare(*paths) == []
    moved = math.nextafter(-0.232, 0.0)  # the last digit of a float
    last_digit = {**other, "results": {"heuristic": {
        **other["results"]["heuristic"], "points_per_deal_ci95": [-0.277, moved]}}}
    paths[1].write_text(json.dumps(last_digit) + "\n")
    assert same_curve.compare(*paths) == [
        f"@1000.results.heuristic.points_per_deal_ci95[1]: -0.232 != {moved!r}"]
    assert same_curve.compare(*paths, rtol=1e-12) == []


def test_both_runs_of_the_strength_comparison_are_valid_configs(tmp_path):
    runs = same_strength.runs(runners=1, seed=3)
    assert len(runs) == 2
    for name, extra in runs.items():
        load_config(DEFAULT, same_strength.run_settings(
            tmp_path, same_strength.run_name(name), 3_000_000, 500_000, 1000, "ai:version=1",
            extra))
    assert list(same_strength.runs(runners=1, only="rllib")) == ["RLlib, 1 env runner(s)"]


def test_the_distillation_benchmarks_fits_are_valid_settings():
    settings = distill_labels.fit_settings(
        load_loop_config(ROOT / "configs" / "history" / "v5.yaml"))
    assert list(settings) == ["own", "loop", "strict2", "strict1.5", "small"]
    assert settings["own"].epochs == 1 and settings["strict2"].best_weight == 1.0


def test_the_expert_data_benchmarks_settings_are_valid():
    configs = bench_expert_data.data_configs(32)
    assert sorted(configs) == [0, *sorted(bench_expert_data.WORLDS)]
    assert all(cfg.positions_per_shard == 32 for w, cfg in configs.items() if w)


def test_deals_consistent_with_a_view_are_the_multinomial_without_voids_and_counted_with_them():
    """pimc_predictors.count_deals: 39 unseen cards, 9 to each other seat and 12 out,
    is 39! / (9! 9! 9! 12!); with voids it agrees with enumerating every deal."""
    none = np.zeros((4, 4), bool)
    want = math.factorial(39) / (math.factorial(9) ** 3 * math.factorial(12))
    assert pimc_predictors.count_deals((9, 9, 9, 12), [10, 10, 10, 9], none) == \
        pytest.approx(want, rel=1e-12)
    suits = [0, 0, 0, 1, 1, 2, 3]  # seven unseen cards by suit
    sizes = (2, 2, 1, 2)
    void = np.zeros((4, 4), bool)
    void[0, 0] = void[1, 1] = void[2, 0] = True
    brute = 0
    for places in itertools.product(range(4), repeat=len(suits)):
        if tuple(places.count(r) for r in range(4)) == sizes and \
                not any(void[r, k] for r, k in zip(places, suits)):
            brute += 1
    by_suit = [suits.count(k) for k in range(4)]
    assert brute > 0 and pimc_predictors.count_deals(sizes, by_suit, void) == brute
    assert pimc_predictors.count_deals(sizes, by_suit, none) < math.factorial(7)


def test_a_sampler_that_puts_the_hidden_cards_where_they_are_beats_uniform_and_misses_stay_finite():
    """pimc_predictors' log-likelihood: worlds that always place a hidden card right
    score above the uniform marginal; a card never drawn at its true place keeps the
    pseudo-world's share of the uniform marginal (finite), below uniform."""
    truth = np.full(48, -1, np.int8)
    truth[[0, 1, 2, 3]] = [1, 2, 3, 4]
    uniform = pimc_predictors.log_likelihood(pimc_predictors.uniform_marginals(truth), truth)
    assert uniform == pytest.approx(math.log(1 / 4))
    right = np.where(truth >= 0, truth, -1)[None, :].repeat(10, 0)
    weights = np.ones(10)
    marginals = pimc_predictors.sampled_marginals(right, weights, truth)
    assert pimc_predictors.log_likelihood(marginals, truth) > uniform
    wrong = right.copy()
    wrong[:, [0, 1]] = wrong[:, [1, 0]]
    missed = pimc_predictors.log_likelihood(
        pimc_predictors.sampled_marginals(wrong, weights, truth), truth)
    assert np.isfinite(missed) and missed < uniform


def test_sized_marginals_give_each_place_its_number_of_hidden_cards():
    """pimc_predictors.place_marginals: a network's scores become, per hidden card,
    a distribution over the places; sized, each place also holds as many hidden
    cards as it really does (as in every drawn world), and a card seen stays 0."""
    truth = np.full(48, -1, np.int8)
    truth[:10] = [1, 1, 1, 2, 2, 3, 4, 4, 4, 4]
    p = np.random.default_rng(0).random((48, 4))
    for sized in (False, True):
        m = pimc_predictors.place_marginals(p, truth, sized)
        assert np.allclose(m[:10].sum(1), 1) and (m[10:] == 0).all()
    assert np.allclose(m.sum(0)[1:], [3, 2, 1, 4], atol=1e-6)


def readme_strength_section(text: str) -> str:
    """What lies between the README's strength markers."""
    return re.search(re.escape(strength.BEGIN) + r"\n(.*?)\n" + re.escape(strength.END), text,
                     re.S)[1]


def test_the_readmes_strength_section_is_all_the_generators_output():
    """Nothing written by hand inside the generated section (the next `make strength`
    would erase it): it is exactly what strength.short writes for its rows, and it
    names the ai and expert it measured."""
    section = readme_strength_section((ROOT / "README.md").read_text())
    table = {(m[1], m[2]): m[0] for m in
             re.finditer(r"^\| `([^`]+)` \| `([^`]+)` \|.*$", section, re.M)}
    assert list(table) == strength.SHORT
    measured = re.search(r"measured with `ai` v(\d+) and `expert` version (\d+);", section)
    assert measured, "the section does not say which ai and expert it measured"
    assert section == strength.short(table, 0, (int(measured[1]), int(measured[2])))


def test_make_strength_names_the_ai_and_expert_it_measured(tmp_path, monkeypatch):
    from aluette_env.players.onnx_policy import LATEST_VERSION
    from aluette_env.players.search import LATEST
    readme = tmp_path / "README.md"
    readme.write_text(f"# A\n\n{strength.BEGIN}\nold, by hand\n{strength.END}\n\n# B\n")
    fake = "| `{}` | `{}` | 10 | +0.100 [+0.000, +0.200] | 0.5 | 0.5 / 0.0 / 0.5 |"
    monkeypatch.setattr(strength, "rows", lambda *a, **k: {p: fake.format(*p)
                                                           for p in strength.SHORT})
    strength.main(["--out", str(tmp_path / "STRENGTH.md"), "--readme", str(readme)])
    section = readme_strength_section(readme.read_text())
    assert "by hand" not in section
    assert f"measured with `ai` v{LATEST_VERSION} and `expert` version {LATEST};" in section
    assert readme.read_text().startswith("# A\n") and readme.read_text().endswith("# B\n")


def test_distill_agreement_fits_are_valid_settings_and_noise_is_measured_against_its_tail():
    from training.config import load_loop_config
    cfg = load_loop_config(str(ROOT / "configs" / "history" / "v7.yaml"), [])
    fits = distill_agreement.fit_settings(cfg)
    assert all(settings.validation == 0 for settings, _ in fits.values())
    assert {labels for _, labels in fits.values()} == {"expert", "own"}
    # The config's fit is v7's as it was made (no threshold, no trust region); the
    # default one has both, each of the two others one of them.
    made, default = fits["the config's"][0], fits["the default distillation"][0]
    assert made.significance == 0 and made.logit_anchor == 0
    assert default.significance > 0 and default.logit_anchor > 0
    assert sum(f.significance > 0 for f, _ in fits.values()) == 2
    assert sum(f.logit_anchor > 0 for f, _ in fits.values()) == 2
    also = distill_agreement.fit_settings(cfg, [(3.0, 0.5)])
    assert also.keys() - fits.keys() == {"significance 3, logit_anchor 0.5"}
    extra = also["significance 3, logit_anchor 0.5"][0]
    assert (extra.significance, extra.logit_anchor, extra.validation) == (3.0, 0.5, 0)
    # Two positions: a kept card, and a switch claiming 2.5 standard errors.
    nan = np.nan
    data = {"policy": np.array([[0.6, 0.4], [0.7, 0.3]]), "move": np.array([0, 1]),
            "values": np.array([[0.5, 0.2], [0.0, 0.25]]),
            "stderr": np.array([[nan, 0.1], [0.1, nan]])}
    report = distill_agreement.noise_report(data)
    assert "switches from the policy's greedy card in 50.0%" in report
    assert "over 2 standard errors: 100.0% (noise alone: 14.3%)" in report
    assert "over 3 standard errors: 0.0% (noise alone: 0.9%)" in report
