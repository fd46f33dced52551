"""The env runner of the RLlib backend: whole matches of the batched engine, fed
to RLlib as batches.

:class:`TableEnvRunner` is an RLlib ``EnvRunner`` (the documented extension
point for environments RLlib's own runners do not fit). It steps
:class:`training.rollouts.AllSeatGames`, the SB3 backend's all-seat collection,
for ``num_games`` matches at once: one forward pass of the current module per
play for every seat it holds, the league (past snapshots, fixed players) at
the other seats. Each call of :meth:`sample` plays whole matches and returns
one finished ``SingleAgentEpisode`` per (match, learner seat) column, so RLlib
does no per-agent bookkeeping while sampling and PPO's learner computes GAE on
complete episodes (no bootstrap). Rewards are the SB3 backend's: a column's
team deal points on its last decision of the deal.

Snapshots reach the runners through :meth:`TableEnvRunner.set_league`
(called by the trainer on every runner); the learner module's weights come
with RLlib's own weight sync after each update.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.columns import Columns
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.env.utils.infinite_lookback_buffer import InfiniteLookbackBuffer
from ray.rllib.utils.metrics import EPISODE_LEN_MEAN, EPISODE_RETURN_MEAN, SAMPLE_TIMER

from aluette_env.game import NUM_CARDS, PLAYS_PER_DEAL
from aluette_env.observation import OBS_SIZE
from aluette_env.players import load_player

from ..config import TrainConfig, selfplay_games
from ..league import POLICY_ENTRIES, OpponentPool
from ..rollouts import AllSeatGames
from .env import ACTION_SPACE, OBSERVATION_SPACE



def decisions_per_match(num_deals: int) -> int:
    """Decisions of one seat in one match (every seat plays a card of every trick)."""
    return num_deals * PLAYS_PER_DEAL // 4


def learner_columns(cfg: TrainConfig) -> int:
    """Learner seats of ``num_games`` matches: four per self-play game, two per league game."""
    n = selfplay_games(cfg)
    return 4 * n + 2 * (cfg.num_games - n)


def samples_per_round(cfg: TrainConfig) -> int:
    """Learner samples of one round (``num_games`` whole matches)."""
    return learner_columns(cfg) * decisions_per_match(cfg.env.num_deals)


def rounds_per_sample(cfg: TrainConfig) -> int:
    """Rounds one env runner plays per ``sample()``: its share of
    ``rllib.train_batch_size``, rounded up to whole matches."""
    share = cfg.rllib.train_batch_size / max(1, cfg.rllib.num_env_runners)
    return max(1, math.ceil(share / samples_per_round(cfg)))


def local_runner(cfg: TrainConfig, seed: int | None = None) -> TableEnvRunner:
    """An env runner in this process, without Ray started (tests, benchmarks)."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from .module import module_spec
    seed = cfg.seed if seed is None else seed
    config = (PPOConfig()
              .environment(observation_space=OBSERVATION_SPACE, action_space=ACTION_SPACE,
                           env_config={"train_config": cfg.model_dump(), "seed": seed})
              .env_runners(num_env_runners=0)
              .rl_module(rl_module_spec=module_spec(cfg.network))
              .debugging(seed=seed))
    return TableEnvRunner(config=config)


class _Spaces:
    """What RLlib asks of ``EnvRunner.env`` (its spaces), without a gym env."""

    num_envs = 1
    observation_space = single_observation_space = OBSERVATION_SPACE
    action_space = single_action_space = ACTION_SPACE

    @property
    def unwrapped(self):
        return self

    def close(self) -> None:
        pass


class TableEnvRunner(SingleAgentEnvRunner):
    """See the module docstring. ``env_config``: ``train_config`` (a TrainConfig
    as a dict) and ``seed`` (the run's seed, advanced on resume)."""

    def make_env(self) -> None:
        self.env = _Spaces()
        self.num_envs = 1
        cfg = TrainConfig.model_validate(self.config.env_config["train_config"])
        self.cfg = cfg
        index = int(self.worker_index or 0)
        seed = int(self.config.env_config.get("seed", cfg.seed)) + 10_007 * index
        fixed = {spec: load_player(spec, seed=seed) for spec in cfg.selfplay.opponents
                 if spec not in POLICY_ENTRIES}
        self.pool = OpponentPool(cfg.selfplay.opponents, fixed, np.random.default_rng(seed))
        self.games = AllSeatGames(cfg.num_games, selfplay_games(cfg), self.pool,
                                  cfg.env.num_deals, seed=seed)
        self._needs_reset = True  # at the first sample: league games may await snapshots
        self.generator = torch.Generator().manual_seed(seed)
        self.rounds = rounds_per_sample(cfg)
        self.steps = decisions_per_match(cfg.env.num_deals)
        # The episodes GAE runs over: the match, or each deal (ppo.credit).
        per = self.steps // cfg.env.num_deals if cfg.ppo.credit == "deal" else self.steps
        self.spans = [(a, a + per) for a in range(0, self.steps, per)]
        self.league: list[str] = []

    def make_module(self):
        super().make_module()
        if self.module is not None:
            self.module.eval()

    def assert_healthy(self):
        assert hasattr(self, "games") and self.module is not None

    # -- the league ------------------------------------------------------------------

    def set_league(self, snapshots: list[tuple[str, dict]]) -> list[str]:
        """Past snapshots ``(name, module state)``, oldest first, as opponents; the
        next matches draw their opponents from the new pool. Returns their names."""
        from .module import ModulePlayer, module_spec
        if not hasattr(self, "games"):  # the driver's runner when remote runners sample
            return []
        players = []
        for name, state in snapshots:
            module = module_spec(self.cfg.network, inference_only=True).build()
            module.set_state(state)
            players.append((name, ModulePlayer(module, name=name, temperature=1.0,
                                               seed=int(self.generator.initial_seed()))))
        self.pool.snapshots = players
        self.league = [name for name, _ in snapshots]
        self._needs_reset = True  # rounds end at match boundaries: only the draws change
        return self.league

    def node_id(self) -> str:
        """The Ray node this runner runs on (for placement checks)."""
        import ray
        return ray.get_runtime_context().get_node_id()

    # -- sampling ----------------------------------------------------------------------

    def decide(self, obs: np.ndarray, masks: np.ndarray):
        """Cards of the current module, sampled (Gumbel-max on the runner's seeded
        generator); (actions, their log-probabilities)."""
        with torch.no_grad():
            logits = self.module.logits(torch.from_numpy(obs), torch.from_numpy(masks))
            gumbel = -torch.log(-torch.log(torch.rand(logits.shape, generator=self.generator)
                                           .clamp_(min=1e-20)))
            actions = (logits + gumbel).argmax(1)
            logp = torch.log_softmax(logits, 1).gather(1, actions[:, None])[:, 0]
        return actions.numpy(), logp.numpy()

    def play_round(self) -> dict[str, np.ndarray]:
        """``num_games`` whole matches; arrays by column: ``obs`` [C, T+1, OBS_SIZE],
        ``mask`` [C, T+1, 48], ``actions``, ``rewards``, ``logp`` [C, T]
        (T decisions per match; row T repeats row T-1: the observation
        after the last card, never valued since the episode is terminated)."""
        games, T = self.games, self.steps
        C = games.num_columns
        obs = np.zeros((C, T + 1, OBS_SIZE), np.int8)
        mask = np.zeros((C, T + 1, NUM_CARDS), np.int8)

        def decide(o, m):
            a, lp = self.decide(o, m)
            return a, np.zeros(len(a), np.float32), lp

        roll = games.collect(T, decide, observations=obs[:, :T].transpose(1, 0, 2),
                             action_masks=mask[:, :T].transpose(1, 0, 2))
        if not roll.episode_starts[0].all() or not roll.last_dones.all():
            raise RuntimeError("a round did not play whole matches")
        obs[:, T], mask[:, T] = obs[:, T - 1], mask[:, T - 1]
        return {"obs": obs, "mask": mask, "actions": roll.actions.T.astype(np.int64),
                "rewards": roll.rewards.T.copy(), "logp": roll.log_probs.T.copy()}

    def sample(self, *, explore: bool = True, **kwargs) -> list[SingleAgentEpisode]:
        """Whole matches (``rounds_per_sample`` rounds): one terminated episode per
        (match, learner seat). ``num_timesteps`` / ``num_episodes`` are ignored."""
        t0 = time.perf_counter()
        if self._needs_reset:
            self.games.reset()
            self._needs_reset = False
        episodes: list[SingleAgentEpisode] = []
        info = {}  # one object, pickled once
        # PPO's loss reads the action distribution inputs only for its KL term, which
        # this backend turns off (use_kl_loss=False): a placeholder saves 192 bytes
        # per sample on the way to the learner.
        no_kl = np.zeros((self.steps, 1), np.float32)
        for _ in range(self.rounds):
            r = self.play_round()
            for c in range(len(r["actions"])):
                for a, b in self.spans:  # a match, or each deal of it (ppo.credit)
                    # Row b: the next deal's first position (or row T), a real one
                    # whose value the terminated episode never uses; views, no copy.
                    episodes.append(SingleAgentEpisode(
                        observations=InfiniteLookbackBuffer(
                            {"observation": r["obs"][c, a:b + 1],
                             "action_mask": r["mask"][c, a:b + 1]}),
                        infos=InfiniteLookbackBuffer([info] * (b - a + 1)),
                        actions=InfiniteLookbackBuffer(r["actions"][c, a:b]),
                        rewards=InfiniteLookbackBuffer(r["rewards"][c, a:b]),
                        extra_model_outputs={
                            Columns.ACTION_LOGP: InfiniteLookbackBuffer(r["logp"][c, a:b]),
                            Columns.ACTION_DIST_INPUTS: InfiniteLookbackBuffer(no_kl[:b - a])},
                        terminated=True, len_lookback_buffer=0,
                        observation_space=OBSERVATION_SPACE, action_space=ACTION_SPACE))
            returns = r["rewards"].sum(1)
            self.metrics.log_value(EPISODE_RETURN_MEAN, float(returns.mean()), window=1)
            self.metrics.log_value(("module_episode_return_mean", DEFAULT_MODULE_ID),
                                   float(returns.mean()), window=1)
            self.metrics.log_value(EPISODE_LEN_MEAN, self.steps, window=1)
        n = sum(len(e) for e in episodes)
        self._increase_sampled_metrics(n, len(episodes))
        self.num_env_steps_sampled_lifetime += n
        self.metrics.log_value(SAMPLE_TIMER, time.perf_counter() - t0)
        return episodes

    def get_metrics(self):
        return self.metrics.reduce()
