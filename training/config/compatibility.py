"""Which settings of a training config work together: the backend (sb3 or rllib)
x the features (pretrain, pfsp, partner games, the privileged critic, the belief
head, bfloat16, target_kl) x the variant (the default game or the signs). Each
rule refuses with one line naming the keys and what to set. :class:`TrainConfig`
runs them once its sections are valid (so they hold for a config built in code
too); this module reads the config's attributes and imports none of its models.
"""

from __future__ import annotations


def check_compatible(cfg) -> None:
    """Refuse, with one line (a ValueError pydantic reports as the config's), a
    setting that the backend, another setting or the variant does not support;
    ``cfg``: a :class:`~training.config.schemas.TrainConfig` whose sections each
    passed their own checks (its ``model_validator``)."""
    if cfg.backend == "rllib" and cfg.pretrain is not None:
        raise ValueError("'pretrain': not supported by backend rllib; remove it")
    sp = cfg.selfplay
    if sp.pfsp is not None and cfg.backend != "sb3":
        raise ValueError("'selfplay.pfsp' needs backend sb3 (its table counts the league "
                         "games' deals); remove it or set it")
    if sp.partners is not None and (cfg.backend != "sb3" or cfg.env.signs):
        raise ValueError("'selfplay.partners' needs backend sb3 and the default game "
                         "(env.id aluette_v1); remove it or set them")
    net = cfg.network
    if net.critic == "privileged" and not net.sparse:
        raise ValueError("'network.critic' privileged reads the engine's index lists: set "
                         "'network.sparse' to true")
    if net.belief > 0 and net.critic != "privileged":
        raise ValueError(f"'network.belief' ({net.belief}) learns from the privileged "
                         f"planes: set 'network.critic' to privileged, or belief to 0")
    if cfg.backend == "rllib" and (net.critic != "seat"):
        raise ValueError("'network.critic' privileged: not supported by backend rllib; "
                         "set it to seat")
    if cfg.backend == "rllib" and net.precision == "bfloat16":
        raise ValueError("'network.precision' bfloat16: not supported by backend rllib; "
                         "set it to float32 or auto (float32 there)")
    if cfg.backend == "rllib" and cfg.torch_compile is True:
        raise ValueError("'torch_compile': not supported by backend rllib; set it to false "
                         "(auto is false there)")
    if cfg.backend == "rllib" and cfg.ppo.target_kl is not None:
        raise ValueError(f"'ppo.target_kl': not supported by backend rllib; set it to null "
                         f"(got {cfg.ppo.target_kl!r})")
    if cfg.env.signs:
        _signs_variant(cfg)
    elif cfg.env.catch != 0.25:
        raise ValueError(f"'env.catch' ({cfg.env.catch}) is the signs variant's: set "
                         f"'env.id' to aluette_signs_v0 too")


def _signs_variant(cfg) -> None:
    """What the signs variant's learner supports (one line per refusal)."""
    net = cfg.network
    wanted = [("backend", cfg.backend, "sb3"), ("network.sparse", net.sparse, False),
              ("network.critic", net.critic, "seat"), ("network.belief", net.belief, 0.0)]
    for key, got, need in wanted:
        if got != need:
            raise ValueError(f"'env.id' ({cfg.env.id}) trains on the signs variant's dense observation "
                             f"with the seat's own critic, on every seat: set '{key}' to "
                             f"{need!r} (got {got!r})")
    if cfg.ppo.n_steps % 2:
        raise ValueError(f"'env.id' ({cfg.env.id}): each seat makes two decisions a trick (a sign, a "
                         f"card): 'ppo.n_steps' must be even (got {cfg.ppo.n_steps})")
    if cfg.pretrain is not None:
        raise ValueError(f"'env.id' ({cfg.env.id}): 'pretrain' imitates a player of the default "
                         "game's actions; remove it (a 'network.warm_start' model of the "
                         "default game starts the signs policy: it reads no sign yet and "
                         "makes each sign, or none, with the same chance)")
    if cfg.eval.panel is not None:
        raise ValueError(f"'env.id' ({cfg.env.id}): the panel plays the default game; remove "
                         "'eval.panel' (eval.opponents play at the table with signs)")
    if cfg.eval.partners is not None:
        raise ValueError(f"'env.id' ({cfg.env.id}): the partner panel plays the default game; remove "
                         "'eval.partners'")
