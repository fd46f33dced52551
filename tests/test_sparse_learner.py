"""The learner's sparse first layer and its critic that sees every hand
(training.sb3.network, the engine's index lists of aluette_env.vector): the
same function as the dense layer on real positions, forward and gradient; a
policy that never reads the privileged part; the export and the players that
still read the dense observation."""

import copy

import numpy as np
import pytest
import torch
from conftest import real_positions

from aluette_env.observation import (
    ACTIVE_PAD, HIDDEN_PAD, HIDDEN_SIZE, MAX_ACTIVE, MAX_HIDDEN, OBS_SIZE, dense,
)
from aluette_env.players.heuristic import HeuristicPlayer
from aluette_env.players.random_player import RandomPlayer
from aluette_env.vector import VectorGame
from training.config import load_config
from training.sb3.network import CardTrunk, PolicyPlayer, masked_logits, policy_logits
from training.sb3.train import build_env, build_model
from training.league import OpponentPool


@pytest.fixture(scope="module")
def real():
    return real_positions()


def test_engine_lists_exactly_the_ones_of_the_observation(real):
    obs, idx, hidden, _, cards, seats = real
    assert (dense(idx, OBS_SIZE) == obs).all()
    counts = (idx != ACTIVE_PAD).sum(1)
    assert counts.max() <= MAX_ACTIVE and counts.min() > 0
    # the privileged part: every card in another hand or unused, by relative seat
    priv = dense(hidden, HIDDEN_SIZE).reshape(len(obs), 4, 48)
    for i in range(0, len(obs), 97):
        seat = int(seats[i])
        for c in range(48):
            code = int(cards[i, c])
            in_other = code < 4 and code != seat
            expect = [0, 0, 0, 0]
            if code == 4:
                expect[3] = 1
            elif in_other:
                expect[(code - seat) % 4 - 1] = 1
            assert list(priv[i, :, c]) == expect
    assert ((hidden != HIDDEN_PAD).sum(1) <= MAX_HIDDEN).all()


def test_lists_do_not_depend_on_numbas_threads_and_a_cut_list_says_so():
    """observe_sparse writes the lists on numba's threads: one thread or two give
    the same lists at every step; a row with more ones than MAX_ACTIVE is cut
    and its count says so (write_active; the kernel refuses such a count)."""
    import numba

    from aluette_env.observation import write_active
    games = [VectorGame(256, seed=3, sparse=True) for _ in range(2)]
    counts = (1, min(2, numba.config.NUMBA_NUM_THREADS))
    threads = numba.get_num_threads()
    try:
        for g, n in zip(games, counts):
            numba.set_num_threads(n)
            g.reset()
        for _ in range(40):
            for g, n in zip(games, counts):
                numba.set_num_threads(n)
                g.step(HeuristicPlayer().act_batch(g.obs, g.mask))
            assert (games[0].obs_indices == games[1].obs_indices).all()
            assert (games[0].hidden_indices == games[1].hidden_indices).all()
    finally:
        numba.set_num_threads(threads)
    row = np.zeros(OBS_SIZE, np.int8)
    row[5:5 + MAX_ACTIVE + 3] = 1
    out = np.zeros(MAX_ACTIVE, np.int16)
    assert write_active(row, out) == MAX_ACTIVE + 3
    assert list(out) == list(range(5, 5 + MAX_ACTIVE))
    row[:] = 0
    row[[0, 7, OBS_SIZE - 1]] = 1
    assert write_active(row, out) == 3
    assert list(out[:4]) == [0, 7, OBS_SIZE - 1, ACTIVE_PAD]


def _trunk_grads(trunk, inp):
    trunk.zero_grad()
    out = trunk(inp)
    (out ** 2).sum().backward()
    return out.detach(), [p.grad.clone() for p in trunk.parameters()]


@pytest.mark.parametrize("widths", [(256, 64), (37,)])
@pytest.mark.slow
def test_sparse_layer_equals_the_dense_layer_forward_and_gradient(real, widths):
    """The same function as the dense layer: both against the layer computed in
    float64 on the dense vectors, relative to the largest entry. The sparse
    layer is within 1e-5 forward and backward; float32 MKL's own product over
    15,360 positions is about 1.2e-5 off, so the two float32 paths agree to 1e-4."""
    obs, idx, _, _, _, _ = real
    torch.manual_seed(0)
    from gymnasium import spaces
    trunk = CardTrunk(spaces.Box(0, 1, (OBS_SIZE,)), widths=widths)
    x = torch.as_tensor(obs, dtype=torch.float32)
    i = torch.as_tensor(idx, dtype=torch.float32)  # as SB3's buffer keeps them
    exact = copy.deepcopy(trunk).double()
    exact.zero_grad()
    out64 = exact.net(x.double())
    (out64 ** 2).sum().backward()
    grads64 = [p.grad for p in exact.parameters()]
    dense_out, dense_grads = _trunk_grads(trunk, x)
    sparse_out, sparse_grads = _trunk_grads(trunk, i)

    def off(a, b):
        a, b = a.detach().double(), b.detach().double()
        return float((a - b).abs().max()) / max(1.0, float(b.abs().max()))

    assert off(sparse_out, out64) < 1e-5
    assert off(sparse_out, dense_out) < 1e-5
    for g64, g_dense, g_sparse in zip(grads64, dense_grads, sparse_grads):
        assert off(g_sparse, g64) < 1e-5
        assert off(g_sparse, g_dense) < 1e-4


def test_gather_sum_refuses_lists_outside_the_layer():
    from training.sb3.gather import gather_sum
    weight = torch.zeros(4, 10, requires_grad=True)
    assert gather_sum(torch.tensor([[1, 3, 10, 10]]), weight, 10).shape == (1, 4)
    for bad in ([[1, 11, 10, 10]], [[-1, 2, 10, 10]]):
        with pytest.raises(ValueError, match="entries 0..9 or the pad 10"):
            gather_sum(torch.tensor(bad), weight, 10)


@pytest.mark.parametrize("privileged", [False, True], ids=["seat", "privileged"])
@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
@pytest.mark.slow
def test_the_fused_first_layer_is_the_gather_the_bias_and_the_relus(real, precision,
                                                                    privileged):
    """training.sb3.gather.relu_layer (the trunk's first layer in one pass) against
    the same layer in separate torch steps (gather, bias, ReLU; the privileged
    product added for the value's block), forward and every gradient: to
    float32's rounding in float32, to bfloat16's (8 bits) under autocast."""
    from gymnasium import spaces

    from training.sb3.gather import relu_layer
    from training.sb3.network import PRIVILEGED_INPUT, SPARSE_INPUT, hidden_planes
    _, idx, hidden, _, _, _ = real
    width = PRIVILEGED_INPUT if privileged else SPARSE_INPUT
    x = torch.as_tensor(np.concatenate([idx, hidden], 1)[:, :width][::3], dtype=torch.float32)
    torch.manual_seed(0)
    trunk = CardTrunk(spaces.Box(0, 1, (width,)), widths=(256, 64), privileged=privileged)
    if privileged:
        torch.nn.init.normal_(trunk.hidden.weight, std=0.1)

    def unfused(t):
        first, rest = t.net[0], t.net[1:]
        ones = torch.as_tensor(dense(idx[::3], OBS_SIZE), dtype=torch.float32)
        pre = first(ones)
        if not privileged:
            return rest(pre), None
        return rest(pre), rest(pre + t.hidden(hidden_planes(x)))

    def fused(t):
        first = t.net[0]
        extra = t.hidden(hidden_planes(x)) if privileged else None
        own, seen = relu_layer(x[:, :MAX_ACTIVE], first.weight, first.bias, ACTIVE_PAD, extra)
        assert own.dtype == (torch.bfloat16 if precision == "bfloat16" else torch.float32)
        return t.net[2:](own), None if seen is None else t.net[2:](seen)

    results = []
    for way in (fused, unfused):
        t = copy.deepcopy(trunk)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16"):
            own, seen = way(t)
            loss = (own.float() ** 2).sum() + (0 if seen is None else (seen.float() * 0.3).sum())
        loss.backward()
        results.append([own, seen] + [p.grad for p in t.parameters()])
    tolerance = 1e-5 if precision == "float32" else 2 ** -6
    for a, b in zip(*results):
        if b is None:
            assert a is None
            continue
        a, b = a.detach().double(), b.detach().double()
        assert float((a - b).abs().max()) <= tolerance * max(1.0, float(b.abs().max()))


def model_of(tmp_path, critic, *settings):
    """A fresh model of configs/quick.yaml: critic 'seat' or 'privileged' (sparse
    layer), or 'dense' (network.sparse=false, as every run before the lists)."""
    settings = (["network.sparse=false"] if critic == "dense"
                else [f"network.critic={critic}"]) + list(settings)
    cfg = load_config("configs/quick.yaml", settings + ["num_games=8", f"output_dir={tmp_path}"])
    pool = OpponentPool(cfg.selfplay.opponents, {"heuristic": HeuristicPlayer()},
                        np.random.default_rng(0))
    env = build_env(cfg, pool, seed=0)
    model = build_model(cfg, env, tmp_path)
    return model


def test_privileged_part_changes_the_value_never_the_policy(tmp_path, real):
    _, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, "privileged")
    policy = model.policy
    # a trained privileged layer is not zero
    torch.nn.init.normal_(policy.features_extractor.hidden.weight, std=0.5)
    rng = np.random.default_rng(1)
    other = hidden.copy()
    for row in other:  # other hidden cards: the same count, other entries
        n = int((row != HIDDEN_PAD).sum())
        row[:n] = np.sort(rng.choice(HIDDEN_SIZE, n, replace=False))
    x1 = torch.as_tensor(np.concatenate([idx, hidden], 1), dtype=torch.float32)
    x2 = torch.as_tensor(np.concatenate([idx, other], 1), dtype=torch.float32)
    with torch.no_grad():
        l1, l2 = policy_logits(policy, x1), policy_logits(policy, x2)
        v1, v2 = policy.predict_values(x1), policy.predict_values(x2)
        d1 = policy.get_distribution(x1, action_masks=masks).distribution.logits
        d2 = policy.get_distribution(x2, action_masks=masks).distribution.logits
        f1, f2 = policy.extract_features(x1)[0], policy.extract_features(x2)[0]
    # The policy's features are the same numbers; its logits the same up to the
    # float32 product's rounding, which MKL may take by another path for
    # another buffer's alignment.
    assert torch.equal(f1, f2)
    legal = torch.as_tensor(masks) > 0
    assert float((l1 - l2).abs().max()) < 1e-6
    assert float((d1 - d2)[legal].abs().max()) < 1e-6
    assert float((v1 - v2).abs().mean()) > 1e-3
    # the value with the privileged part is not the value without it
    with torch.no_grad():
        v0 = policy.predict_values(torch.as_tensor(
            np.concatenate([idx, np.full_like(hidden, HIDDEN_PAD)], 1), dtype=torch.float32))
    assert float((v1 - v0).abs().mean()) > 1e-3
    # no parameter the policy's logits use is the privileged layer's
    logits = policy_logits(policy, x1).sum()
    policy.zero_grad()
    logits.backward()
    assert policy.features_extractor.hidden.weight.grad is None or \
        float(policy.features_extractor.hidden.weight.grad.abs().max()) == 0.0


@pytest.mark.parametrize("critic", ["dense", "seat", "privileged"])
def test_players_read_the_dense_observation_as_the_learner_reads_its_lists(tmp_path, real,
                                                                           critic):
    obs, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, critic)
    learner_input = {"dense": obs, "seat": idx,
                     "privileged": np.concatenate([idx, hidden], 1)}[critic]
    assert model.observation_space.shape == (learner_input.shape[1],)
    a = masked_logits(model.policy, obs, masks)
    b = masked_logits(model.policy, learner_input, masks)
    legal = torch.as_tensor(masks) > 0
    assert float((a[legal] - b[legal]).abs().max()) < 1e-5
    player = PolicyPlayer(model.policy)
    assert (player.act_batch(obs, masks) == a.argmax(1).numpy()).all()
    # a league snapshot is given the lists of the ones (training.rollouts)
    assert player.reads_index_lists
    c = masked_logits(model.policy, idx, masks)
    assert float((a[legal] - c[legal]).abs().max()) < 1e-5


@pytest.mark.parametrize("critic", ["dense", "privileged"])
def test_evaluate_actions_gives_maskable_ppo_s_numbers(tmp_path, real, critic):
    """The learner's lean evaluate_actions (one log-softmax) against sb3-contrib's
    masked categorical, on real positions with some cards illegal."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    obs, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, critic)
    x = torch.as_tensor(obs if critic == "dense" else np.concatenate([idx, hidden], 1),
                        dtype=torch.float32)
    torch.nn.init.normal_(model.policy.action_net.weight, std=1.0)  # far from uniform
    legal = torch.as_tensor(masks) > 0
    actions = torch.multinomial(legal.float(), 1).squeeze(1)
    with torch.no_grad():
        ours = model.policy.evaluate_actions(x, actions, action_masks=masks)
        sb3 = MaskableActorCriticPolicy.evaluate_actions(model.policy, x, actions,
                                                         action_masks=masks)
    for a, b in zip(ours, sb3):
        assert a.shape == b.shape
        assert float((a - b).abs().max()) < 1e-5
    assert float(ours[2].min()) >= 0.0 and float(ours[1].max()) <= 0.0


def test_rollout_sampling_draws_legal_cards_at_the_policy_s_rates(tmp_path, real):
    obs, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, "privileged")
    torch.nn.init.normal_(model.policy.action_net.weight, std=1.0)
    x = torch.as_tensor(np.concatenate([idx, hidden], 1)[:8], dtype=torch.float32)
    m = masks[:8]
    torch.manual_seed(0)
    first, values, logp = model.policy.sample(x, m)
    with torch.no_grad():
        v, lp, _ = model.policy.evaluate_actions(x, first, action_masks=m)
    assert torch.allclose(values, v.flatten()) and torch.allclose(logp, lp, atol=1e-6)
    n = 4000  # draws of each row: the 8 rows repeated, each with its own noise
    actions = model.policy.sample(x.repeat(n, 1), np.tile(m, (n, 1)))[0].view(n, 8)
    assert bool(torch.as_tensor(m).gather(1, actions.T).all())  # every draw legal
    with torch.no_grad():
        probs = torch.softmax(masked_logits(model.policy, x.numpy(), m), 1)
    freq = torch.zeros_like(probs)
    for row in range(8):
        freq[row] = torch.bincount(actions[:, row], minlength=probs.shape[1]) / n
    # 4,000 draws: the standard error of a rate is at most 0.008
    assert float((freq - probs).abs().max()) < 0.04


def test_belief_head_reads_the_policy_s_features_and_stays_out_of_the_policy(tmp_path, real):
    """network.belief: the head's logits on every belief_every-th row, from the
    policy's features (what the update's belief loss reads, tests/test_ppo.py);
    without being asked for (rollouts, players) the head is not run, and the
    policy's logits never reach it."""
    from training.sb3.network import hidden_planes
    _, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, "privileged", "network.belief=0.5")
    policy = model.policy
    x = torch.as_tensor(np.concatenate([idx, hidden], 1)[:256], dtype=torch.float32)
    m, actions = masks[:256], torch.as_tensor(masks[:256]).float().argmax(1)
    planes = hidden_planes(x)
    assert planes.shape == (256, HIDDEN_SIZE)
    assert (planes.sum(1).numpy() == (hidden[:256] != HIDDEN_PAD).sum(1)).all()
    out = policy.evaluate(x, actions, m, belief=True)
    rows = slice(None, None, policy.belief_every)
    with torch.no_grad():
        expected = policy.belief_net(policy.extract_features(x)[0][rows])
    assert out.beliefs.shape == (256 // policy.belief_every, HIDDEN_SIZE)
    assert torch.allclose(out.beliefs.detach(), expected, atol=1e-6)
    assert policy.evaluate(x, actions, m).beliefs is None
    assert policy.evaluate(torch.as_tensor(idx[:256], dtype=torch.float32), actions, m,
                           belief=True).beliefs is None  # no targets in a seat's lists
    policy.zero_grad()
    policy_logits(policy, x).sum().backward()
    assert policy.belief_net.weight.grad is None


def test_belief_needs_the_privileged_critic(tmp_path):
    with pytest.raises(ValueError, match="network.belief"):
        load_config("configs/quick.yaml", ["network.belief=1", "network.critic=seat",
                                           f"output_dir={tmp_path}"])


def test_a_checkpoint_keeps_the_belief_head(tmp_path, real):
    """A run with a belief head resumes with it: saved and loaded, the head, its
    weight and the optimizer's state for it come back."""
    from training.sb3.checkpoints import load_model, save_model
    _, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, "privileged", "network.belief=0.25")
    torch.nn.init.normal_(model.policy.belief_net.weight, std=0.3)
    x = torch.as_tensor(np.concatenate([idx, hidden], 1)[:64], dtype=torch.float32)
    out = model.policy.evaluate(x, torch.as_tensor(masks[:64]).float().argmax(1), masks[:64],
                                belief=True)
    (out.values.sum() + out.beliefs.sum()).backward()
    model.policy.optimizer.step()  # an optimizer state for every layer
    save_model(model, tmp_path / "m.zip")
    back = load_model(tmp_path / "m.zip")
    assert back.policy.belief_coef == 0.25
    assert torch.equal(back.policy.belief_net.weight, model.policy.belief_net.weight)
    assert len(back.policy.optimizer.state_dict()["state"]) == \
        len(model.policy.optimizer.state_dict()["state"])


@pytest.mark.parametrize("amx, avx512_bf16", [(False, False), (False, True), (True, True)],
                         ids=["emulated", "AVX512-BF16", "AMX"])
def test_auto_precision_and_the_first_layers_way_follow_the_cpus_flags(
        tmp_path, monkeypatch, amx, avx512_bf16):
    """network.precision auto: bfloat16 products exactly where the CPU multiplies
    them natively, decided from its flags (no timing: the same choice at every
    start); the sparse first layer is the 0/1 planes' product with AMX tiles and a
    gather elsewhere, the faster over whole paths on each."""
    from training.sb3.train import learner_precision
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16,
                        raising=False)
    native = amx or avx512_bf16
    assert learner_precision("auto") == ("bfloat16" if native else "float32")
    assert learner_precision("float32") == "float32"
    assert learner_precision("bfloat16") == "bfloat16"
    for critic in ("seat", "privileged"):
        policy = model_of(tmp_path, critic, "network.precision=auto").policy
        assert policy.precision == learner_precision("auto")
        assert policy.features_extractor.bfloat16_planes == amx


@pytest.mark.parametrize("planes", [True, False], ids=["planes", "gather"])
@pytest.mark.parametrize("critic", ["seat", "privileged"])
def test_bfloat16_products_give_the_float32_numbers_to_bfloat16_s_precision(tmp_path, real,
                                                                            critic, planes):
    """network.precision=bfloat16: the same weights give the float32 values and
    log-probabilities to within bfloat16's rounding (8 bits of mantissa), and the
    gradient points the same way, whether the first layer multiplies the 0/1
    planes (AMX) or gathers; players still compute in float32."""
    obs, idx, hidden, masks, _, _ = real
    model = model_of(tmp_path, critic, "network.precision=bfloat16")
    policy = model.policy
    assert policy.precision == "bfloat16"
    policy.features_extractor.bfloat16_planes = planes
    torch.nn.init.normal_(policy.action_net.weight, std=0.3)
    x = torch.as_tensor(np.concatenate([idx, hidden], 1) if critic == "privileged" else idx,
                        dtype=torch.float32)[:512]
    m = masks[:512]
    actions = torch.as_tensor(m).float().argmax(1)
    out = {}
    for precision in ("float32", "bfloat16"):
        policy.precision = precision
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(x, actions, action_masks=m)
        assert values.dtype == log_prob.dtype == torch.float32
        (values.sum() + log_prob.sum()).backward()
        out[precision] = (values.detach(), log_prob.detach(),
                          policy.features_extractor.net[0].weight.grad.clone())
    (v32, lp32, g32), (v16, lp16, g16) = out["float32"], out["bfloat16"]
    assert float((v32 - v16).abs().max()) < 0.05 * max(1.0, float(v32.abs().max()))
    assert float((lp32 - lp16).abs().max()) < 0.05
    cosine = torch.nn.functional.cosine_similarity(g32.flatten(), g16.flatten(), dim=0)
    assert float(cosine) > 0.99
    with torch.no_grad():  # a player's logits: float32 whatever the learner's precision
        policy.precision = "bfloat16"
        a = policy_logits(policy, torch.as_tensor(obs[:512]))
        policy.precision = "float32"
        b = policy_logits(policy, torch.as_tensor(obs[:512]))
    assert torch.equal(a, b) and a.dtype == torch.float32


def test_precision_auto_follows_the_cpu_and_a_checkpoint_keeps_it(tmp_path, monkeypatch):
    from training.sb3 import train as sb3_train
    from training.sb3.checkpoints import load_model, save_model
    for native, expect in ((True, "bfloat16"), (False, "float32")):
        monkeypatch.setattr(sb3_train, "native_bfloat16", lambda native=native: native)
        assert sb3_train.learner_precision("auto") == expect
        assert sb3_train.learner_precision("float32") == "float32"
    model = model_of(tmp_path, "privileged", "network.precision=bfloat16")
    save_model(model, tmp_path / "m.zip")
    assert load_model(tmp_path / "m.zip").policy.precision == "bfloat16"
    with pytest.raises(ValueError, match="network.precision"):
        load_config("configs/quick.yaml", ["network.precision=half", f"output_dir={tmp_path}"])


def test_a_checkpoint_saved_under_the_old_module_path_loads_and_warns(tmp_path, monkeypatch):
    """SB3 zips name the policy's classes by module path: one saved while the
    network lived in training.sb3.policy (renamed training.sb3.network) loads
    the same classes, with a DeprecationWarning from the old path's alias."""
    import base64
    import json
    import sys
    import types
    import warnings
    import zipfile

    import cloudpickle

    from training.sb3.checkpoints import load_model, save_model
    from training.sb3.network import CardPolicy
    model = model_of(tmp_path, "privileged")
    save_model(model, tmp_path / "new.zip")
    # The data entry as the old code wrote it: the class pickled by reference to
    # training.sb3.policy (a stand-in module there while it is pickled).
    old = types.ModuleType("training.sb3.policy")
    stand_in = type("CardPolicy", (), {"__module__": "training.sb3.policy"})
    old.CardPolicy = stand_in
    monkeypatch.setitem(sys.modules, "training.sb3.policy", old)
    pickled = base64.b64encode(cloudpickle.dumps(stand_in)).decode()
    monkeypatch.delitem(sys.modules, "training.sb3.policy")
    with zipfile.ZipFile(tmp_path / "new.zip") as z:
        entries = {name: z.read(name) for name in z.namelist()}
    data = json.loads(entries["data"])
    assert data["policy_class"]["__module__"] == "training.sb3.network"
    data["policy_class"].update({":serialized:": pickled, "__module__": "training.sb3.policy"})
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(tmp_path / "old.zip", "w") as z:
        for name, content in entries.items():
            z.writestr(name, content)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        back = load_model(tmp_path / "old.zip")
    assert type(back.policy) is CardPolicy
    assert any(issubclass(w.category, DeprecationWarning) and "training.sb3.network" in
               str(w.message) for w in caught)
    for key, value in model.policy.state_dict().items():
        assert torch.equal(back.policy.state_dict()[key], value)
