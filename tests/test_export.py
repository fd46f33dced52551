"""Export to ONNX, the ONNX player, metadata, version and file errors."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from aluette_env.commands import main as cli_main
from aluette_env.observation import LAYOUT_KEY, OBS_LAYOUT, OBS_SIZE, OLD_LAYOUT_KEY, obs_size
from aluette_env.players.onnx_policy import SHIPPED_MODEL, ModelError, OnnxPlayer
from aluette_env.players import load_player

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def exported(sb3_run, tmp_path_factory):
    """The export of conftest.sb3_run (a tiny SB3 run, evaluated against random and
    heuristic)."""
    path = tmp_path_factory.mktemp("onnx") / "policy.onnx"
    assert cli_main(["export", str(sb3_run), "--out", str(path)]) == 0
    return path


def test_export_round_trip_matches_the_sb3_policy(sb3_run, exported):
    from training.sb3.checkpoints import load_model
    from training.export import learner_form, sample_positions
    model = load_model(sb3_run / "best.zip")
    obs, masks = sample_positions(500, seed=7)
    ours = load_player(str(exported)).act_batch(obs, masks)
    # the learner read index lists (network.sparse): its sparse layer against the
    # dense graph of the export
    theirs, _ = model.predict(learner_form(obs, model.observation_space.shape[0]),
                              deterministic=True, action_masks=masks.astype(bool))
    assert np.array_equal(ours, theirs)
    assert all(masks[i, a] for i, a in enumerate(ours))


def test_metadata_inside_the_file(sb3_run, exported):
    import onnx  # 1 s of import: only where a test reads a file's graph
    meta = {p.key: p.value for p in onnx.load(str(exported)).metadata_props}
    assert meta[LAYOUT_KEY] == str(OBS_LAYOUT) and meta["num_actions"] == "48"
    assert OLD_LAYOUT_KEY not in meta
    assert int(meta["steps_trained"]) > 0 and "run_name: quick" in meta["training_config"]
    assert "points_per_deal" in json.loads(meta["evaluation"])["results"]["heuristic"]
    assert meta["project_version"]


def test_temperature_sampling_is_seeded(exported):
    from training.export import sample_positions
    obs, masks = sample_positions(200, seed=3)
    a = load_player(f"{exported}:temperature=1.0", seed=5).act_batch(obs, masks)
    b = load_player(f"{exported}:temperature=1.0", seed=5).act_batch(obs, masks)
    greedy = load_player(str(exported)).act_batch(obs, masks)
    assert np.array_equal(a, b) and all(masks[i, x] for i, x in enumerate(a))
    assert not np.array_equal(a, greedy)


def test_a_layout_mismatch_is_refused_naming_both(exported, tmp_path):
    import onnx
    m = onnx.load(str(exported))
    for p in m.metadata_props:
        if p.key == LAYOUT_KEY:
            p.value = "999"
    bad = tmp_path / "old.onnx"
    onnx.save(m, str(bad))
    with pytest.raises(ModelError, match=f"observation layout 999.*layouts 1 to {OBS_LAYOUT}"):
        OnnxPlayer(bad)


@pytest.mark.parametrize("content", [None, b"", b"not an onnx model at all", "truncate"])
def test_missing_truncated_or_non_onnx_files(exported, tmp_path, capsys, content):
    path = tmp_path / "m.onnx"
    if content == "truncate":
        path.write_bytes(exported.read_bytes()[:3000])
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelError, match=str(path)):
        load_player(str(path))
    capsys.readouterr()
    assert cli_main(["eval", "--team-a", str(path), "--team-b", "random"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(path) in err


def test_onnx_player_does_not_import_torch(exported):
    code = (f"import sys\nfrom aluette_env.players import load_player\n"
            f"from aluette_env.vector import VectorGame\n"
            f"p = load_player({str(exported)!r})\n"
            f"g = VectorGame(4, seed=0); g.reset(); p.act_batch(g.obs, g.mask); "
            f"p.act(g.obs[0], g.mask[0])\n"
            f"print('torch' in sys.modules, 'stable_baselines3' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_export_refuses_bad_input(tmp_path):
    assert cli_main(["export", str(tmp_path / "nothing.zip"),
                     "--out", str(tmp_path / "a.onnx")]) == 2
    assert cli_main(["export", str(tmp_path), "--out", str(tmp_path / "a.txt")]) == 2
    assert not (tmp_path / "a.onnx").exists()


@pytest.mark.skipif(not SHIPPED_MODEL.exists(), reason="no shipped model in this checkout")
def test_shipped_model_is_small_and_loads():
    assert SHIPPED_MODEL.stat().st_size < 5 * 1024 * 1024
    p = load_player("ai")
    # v5 on reads today's whole vector; v1-v4 were trained on layout 1 and read its
    # prefix. v7 names its layout by today's key; v1-v6 by the key of before
    # (obs_version), read still.
    assert p.metadata[LAYOUT_KEY] == "2" and OLD_LAYOUT_KEY not in p.metadata
    assert p.obs_layout == OBS_LAYOUT == 2 and p.obs_width == OBS_SIZE
    v6 = load_player("ai:version=6")
    assert v6.metadata[OLD_LAYOUT_KEY] == "2" and LAYOUT_KEY not in v6.metadata
    assert v6.obs_layout == 2 and v6.obs_width == OBS_SIZE
    v4 = load_player("ai:version=4")
    assert v4.metadata[OLD_LAYOUT_KEY] == "1" and v4.obs_width == obs_size(1) < OBS_SIZE


def test_a_run_with_a_damaged_state_json_still_exports(sb3_run, tmp_path, capsys):
    import onnx
    import shutil
    run = tmp_path / "run"
    shutil.copytree(sb3_run, run)
    (run / "state.json").write_text((run / "state.json").read_text()[:60])
    assert cli_main(["export", str(run), "--out", str(tmp_path / "x.onnx"), "--verify", "10"]) == 0
    assert "verified on 10 positions" in capsys.readouterr().out
    meta = {p.key: p.value for p in onnx.load(str(tmp_path / "x.onnx")).metadata_props}
    assert meta["evaluation"] == "" and meta["checkpoint"] == "best.zip"
