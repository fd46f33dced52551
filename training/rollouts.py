"""The rollouts: the learner's games on the batched engine, for every training
backend.

:class:`AllSeatGames` plays N games at once: self-play games (the policy at all
four seats), league games (the policy holds one team against an opponent drawn
from :class:`training.league.OpponentPool`) and partner games (one learner seat
beside a partner from :class:`training.league.PartnerPool`). Every seat the
policy plays in training is a learner *column*; :meth:`AllSeatGames.collect`
plays ``n_steps`` decisions of every column into a :class:`Rollout` (arrays in
the layout of SB3's rollout buffer: observations, masks, actions, the deal
points on each column's last decision of a deal, episode starts at match
starts, values and log-probabilities) and values each column's next decision
for the bootstrap. An episode is one match. Backends hand the rollout to their
learner (``training.sb3.ppo.fill_buffer`` for SB3).

May import: numpy and :mod:`aluette_env`; never torch or a training library.
"""

from __future__ import annotations

import numpy as np

from aluette_env.game import ALUETTE_V1, NUM_CARDS, Variant, partner_of, team_of, variant_of
from aluette_env.observation import OBS_SIZE, obs_size
from aluette_env.players import Player, Silent, act_batch, for_signs
from aluette_env.vector import VectorGame

from .league import OpponentPool, PartnerPool

#: What a learner's network reads at its own decisions: ``dense`` the seat's
#: observation; ``indices`` the engine's list of its entries set to 1 (the same
#: vector, for a first layer that computes on the ones); ``privileged`` that list
#: and the list of the privileged part (other hands, unused cards) for a critic
#: that sees every hand. Opponents and partners get the dense observation, but a
#: player that says it ``reads_index_lists`` (a snapshot of the learner) gets the
#: list of its ones when the engine writes it: never the privileged part.
INPUTS = ("dense", "indices", "privileged")


def check_inputs(inputs: str) -> str:
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {', '.join(INPUTS)}, got {inputs!r}")
    return inputs


def input_size(inputs: str, variant: Variant = ALUETTE_V1) -> int:
    """Width of a learner input of kind ``inputs`` in ``variant`` (a game with
    signs: its learner reads the dense observation only, of the variant's layout)."""
    from aluette_env.observation import MAX_ACTIVE, MAX_HIDDEN
    if variant.signs:
        if inputs != "dense":
            raise ValueError(f"the signs variant's learner reads the dense observation, not "
                             f"{inputs!r}")
        return obs_size(variant.obs_layout)
    return {"dense": OBS_SIZE, "indices": MAX_ACTIVE,
            "privileged": MAX_ACTIVE + MAX_HIDDEN}[check_inputs(inputs)]


def learner_inputs(game: VectorGame, inputs: str, rows) -> np.ndarray:
    """The learner inputs of kind ``inputs`` of the seats to act in ``game[rows]``."""
    if inputs == "dense":
        return game.obs[rows]
    if inputs == "indices":
        return game.obs_indices[rows]
    return np.concatenate([game.obs_indices[rows], game.hidden_indices[rows]], axis=1)


class Rollout:
    """One rollout of :class:`AllSeatGames`, by learner column (a seat of a game whose
    decisions train the policy): arrays ``[n_steps, columns, ...]`` in the layout of
    SB3's rollout buffer, plus the bootstrap of each column's next decision."""

    FIELDS = ("observations", "action_masks", "actions", "rewards", "episode_starts",
              "values", "log_probs")

    def __init__(self, n_steps: int, columns: int, obs_size: int,
                 num_actions: int = NUM_CARDS, **arrays: np.ndarray):
        """``arrays`` (any of :attr:`FIELDS`) are written in place, e.g. a backend's
        own rollout buffer; the others are allocated."""
        shapes = {"observations": (obs_size,), "action_masks": (num_actions,)}
        for name in self.FIELDS:
            arr = arrays.get(name)
            if arr is None:
                arr = np.zeros((n_steps, columns) + shapes.get(name, ()), np.float32)
            setattr(self, name, arr)
        self.rewards[...] = 0
        self.last_values = np.zeros(columns, np.float32)
        self.last_dones = np.zeros(columns, np.float32)
        #: (column, match return, decisions) of every match finished in this rollout.
        self.episodes: list[tuple[int, float, int]] = []


class AllSeatGames:
    """N games where the learner's policy holds every seat (self-play games) or one
    team (league games, against an opponent drawn per match from the pool).

    Every seat the policy plays is a learner *column*: all its decisions are
    samples, so no forward pass is wasted. Games ``0 .. num_selfplay-1`` are
    self-play games (four columns each); the next are league games where the
    learner holds team ``g % 2`` (two columns) and the pool's draw (anything but
    ``latest``) the other team. The last ``num_partnered`` are *partner games*
    (Fictitious Co-Play, Strouse et al. 2021): one column, seat ``g % 4``, beside
    a partner drawn per match from ``partners`` (:class:`PartnerPool`: past
    snapshots, rule-based players, the policy at a high temperature), against
    the current policy, whose cards there are not samples: only the learner's
    seat trains, so it learns to play beside whoever sits opposite it, read from
    the order of play in its observation. All games play one card per step; every trick has
    one card per seat, so ``4 * n_steps`` plays from a trick boundary give each
    column exactly ``n_steps`` decisions, and the next rollout starts at a trick
    boundary again. A column's reward is its team's deal points, on its last
    decision of the deal; an episode is one match. ``credit`` says where each
    column's advantages stop (its ``episode_starts``): at the match's end
    (``"match"``), or at each deal's end (``"deal"``: a deal's cards never change
    the next deal, R2's match points only add up, so the next deals' luck is
    noise to this deal's decisions and its value head predicts this deal's points).

    With ``signs`` (the signs variant, S1-S5) every seat makes two decisions a
    trick, a sign and a card: ``4 * n_steps`` steps are still ``n_steps``
    decisions a column, and a trick boundary again when ``n_steps`` is even.
    The pool's players that do not sign sit silent (:func:`for_signs`).

    ``joint`` (optional) acts for several opponents in one pass: an object with
    ``accepts(player) -> bool`` and ``act(players, which, inputs, masks) -> cards``
    (row r played by ``players[which[r]]``; inputs: the engine's index lists
    where it writes them, else the observations), as
    ``training.sb3.league.SnapshotStack`` does for the learner's snapshots.
    """

    def __init__(self, num_games: int, num_selfplay: int, pool: OpponentPool,
                 num_deals: int = 5, seed: int | None = None, inputs: str = "dense",
                 signs: bool | None = None, catch: float | None = None, joint=None,
                 num_partnered: int = 0, partners: PartnerPool | None = None,
                 variant: Variant | None = None, credit: str = "match"):
        if credit not in ("match", "deal"):
            raise ValueError(f"credit must be 'match' or 'deal', got {credit!r}")
        if not 0 <= num_selfplay <= num_games:
            raise ValueError(f"num_selfplay must be from 0 to num_games={num_games}, "
                             f"got {num_selfplay}")
        if not 0 <= num_partnered <= num_games - num_selfplay:
            raise ValueError(f"num_partnered must be from 0 to num_games - num_selfplay = "
                             f"{num_games - num_selfplay}, got {num_partnered}")
        if num_partnered and partners is None:
            raise ValueError("partner games need a PartnerPool (partners)")
        self.num_games = num_games
        self.num_selfplay = num_selfplay
        self.inputs = check_inputs(inputs)
        # The game: ``variant`` (signs / catch, the older way, deprecated; never both).
        self.variant = variant_of(variant, signs, catch)
        self.signs = self.variant.signs
        input_size(inputs, self.variant)  # the signs variant: dense inputs only
        self.game = VectorGame(num_games, num_deals=num_deals, seed=seed, auto_reset=True,
                               sparse=inputs != "dense", variant=self.variant)
        self.pool = pool
        self.joint = joint
        self.num_partnered = num_partnered
        self.credit = credit
        self.partners = partners
        g = np.arange(num_games)
        learner = np.zeros((num_games, 4), bool)
        learner[:num_selfplay] = True
        league = g[num_selfplay:num_games - num_partnered]
        team = team_of(league)  # the learner's team: both its seats
        learner[league, team] = True
        learner[league, partner_of(team)] = True
        partnered = g[num_games - num_partnered:]
        learner[partnered, partnered % 4] = True  # one learner seat beside a drawn partner
        self.learner = learner  # [N, 4] a learner column: the policy plays it, it trains
        # The policy also plays the opponents of partner games, without training there.
        self.policy_seat = learner.copy()
        self.policy_seat[partnered, (partnered + 1) % 4] = True
        self.policy_seat[partnered, (partnered + 3) % 4] = True
        self._partnered = np.zeros(num_games, bool)
        self._partnered[partnered] = True
        self.column = np.full((num_games, 4), -1, np.int64)
        self.column[learner] = np.arange(int(learner.sum()))
        self.num_columns = int(learner.sum())
        # Each league game's opponent by name, and its player: the pool's indices
        # move as snapshots come and go, a match keeps the opponent it drew.
        self.opponent = np.full(num_games, "", object)
        self._opponents: dict[str, Player] = {}
        self._together: dict[str, int] = {}
        self._steps_a_trick = 8 if self.signs else 4
        self._league = ~learner.all(axis=1) & ~self._partnered
        self._seed = seed
        self._episode_start = np.ones(self.num_columns, bool)
        self._return = np.zeros(self.num_columns, np.float32)
        self._length = np.zeros(self.num_columns, np.int64)

    def reset(self, options: dict | None = None) -> None:
        """New matches in every game (``options`` as :meth:`VectorGame.reset`)."""
        self.game.reset(seed=self._seed, options=options)
        self._seed = None
        self._draw(np.flatnonzero(self._league | self._partnered))
        self._episode_start[:] = True
        self._return[:] = 0
        self._length[:] = 0

    def _draw(self, games: np.ndarray) -> None:
        """Opponents for the league games among ``games`` (never ``latest``), partners
        for the partner games among them."""
        if len(games) == 0:
            return
        mates = games[self._partnered[games]]
        games = games[~self._partnered[games]]
        for g, (name, player) in zip(mates, self.partners.draw(len(mates)) if len(mates)
                                     else []):
            self.opponent[g] = name
            self._opponents[name] = for_signs(player) if self.signs else player
        if len(games):
            p = self.pool.probabilities()
            p[0] = 0.0
            if p.sum() <= 0:
                raise ValueError("league games need an opponent other than 'latest' in the pool")
            players = self.pool.players()
            drawn = self.pool.rng.choice(len(p), size=len(games), p=p / p.sum())
            for k in np.unique(drawn):
                name, player = players[k]
                self.opponent[games[drawn == k]] = name
                self._opponents[name] = for_signs(player) if self.signs else player
        playing = set(self.opponent[self._league | self._partnered])
        for name in [n for n in self._opponents if n not in playing]:
            del self._opponents[name]
        self._join()

    def _join(self) -> None:
        # The opponents the joint plays, by name -> their index in its list: the
        # list changes only with the seated opponents, so the joint keeps what it
        # built from it. Never the live policy (a careless partner): the joint
        # keeps its weights.
        accepts = self.joint.accepts if self.joint is not None else lambda p: False
        self._together = {name: k for k, name in enumerate(
            n for n, p in self._opponents.items()
            if accepts(p) and not getattr(p, "live", False))}

    def seated(self) -> list[tuple[str, bool]]:
        """The opponents and partners seated now, in the order they were seated:
        (name, whether it came from the partner pool). With :attr:`opponent`, what
        :meth:`reseat` takes to seat them again in a resumed run."""
        partners = {id(p) for _, p in self.partners.players()} if self.partners else set()
        return [(name, id(p) in partners) for name, p in self.seated_players().items()]

    def seated_players(self) -> dict[str, Player]:
        """The players seated now by name, as the pools hold them (not wrapped)."""
        return {name: p.player if isinstance(p, Silent) else p
                for name, p in self._opponents.items()}

    def reseat(self, opponent: list[str], seated: list[tuple[str, bool]],
               others: dict[str, Player] | None = None) -> None:
        """Each game's opponent (or partner) by name and the players :meth:`seated`
        listed, found again in the pools by name (a resumed run: its pools hold
        the same entries) or in ``others`` (a snapshot the pool let go while a
        match still plays it)."""
        pools = {False: dict(self.pool.players()),
                 True: dict(self.partners.players()) if self.partners else {}}
        self._opponents = {}
        for name, partner in seated:
            player = pools[partner].get(name, (others or {}).get(name))
            if player is None:
                raise ValueError(f"{name!r} was seated but is no longer in the "
                                 f"{'partner' if partner else 'opponent'} pool")
            self._opponents[name] = for_signs(player) if self.signs else player
        self.opponent[:] = np.array(opponent, object)
        self._join()

    def _opponents_act(self, rows: np.ndarray, actions: np.ndarray) -> None:
        game = self.game
        names = self.opponent[rows]
        which = np.full(len(rows), -1, np.int64)
        for name in np.unique(names):
            player = self._opponents[name]
            if name in self._together:
                which[names == name] = self._together[name]
                continue
            idx = rows[names == name]
            # a snapshot of the learner reads the engine's lists of the ones as it did
            lists = game.sparse and getattr(player, "reads_index_lists", False)
            obs = game.obs_indices if lists else game.obs
            actions[idx] = act_batch(player, obs[idx], game.mask[idx])
        if (which >= 0).any():
            idx = rows[which >= 0]
            obs = game.obs_indices if game.sparse else game.obs
            players = [self._opponents[name] for name in self._together]
            actions[idx] = self.joint.act(players, which[which >= 0], obs[idx], game.mask[idx])

    def collect(self, n_steps: int, decide, **arrays: np.ndarray) -> Rollout:
        """Play ``4 * n_steps`` cards in every game. ``decide(obs, masks) -> (actions,
        values, log_probs)`` samples the policy's cards and values its positions;
        ``arrays`` as :class:`Rollout`. ``obs`` are the learner inputs (``inputs``)."""
        game = self.game
        if self.signs and n_steps % 2:
            raise ValueError(f"with signs a column makes two decisions a trick: n_steps must "
                             f"be even, got {n_steps}")
        out = Rollout(n_steps, self.num_columns, input_size(self.inputs, self.variant),
                      game.mask.shape[1], **arrays)
        made = np.zeros(self.num_columns, np.int64)  # decisions so far per column
        rows = np.arange(self.num_games)
        actions = np.zeros(self.num_games, np.int64)
        for _ in range(4 * n_steps):
            seat = game.to_act.astype(np.int64)
            cols = self.column[rows, seat]
            policy = self.policy_seat[rows, seat]
            pg = rows[policy]
            obs, masks = learner_inputs(game, self.inputs, pg), game.mask[pg]
            a, v, lp = decide(obs, masks)
            actions[pg] = a
            if not policy.all():
                self._opponents_act(rows[~policy], actions)
            if self.num_partnered:  # the opponents of partner games do not train
                mine = cols[pg] >= 0
                obs, masks, a, v, lp = obs[mine], masks[mine], a[mine], v[mine], lp[mine]
                pg = pg[mine]
            lc = cols[pg]
            k = made[lc]
            out.observations[k, lc] = obs
            out.action_masks[k, lc] = masks
            out.actions[k, lc] = a
            out.values[k, lc] = v
            out.log_probs[k, lc] = lp
            out.episode_starts[k, lc] = self._episode_start[lc]
            self._episode_start[lc] = False
            made[lc] += 1
            self._length[lc] += 1
            r, deal_done, match_done = game.step(actions)
            if deal_done.any():
                self._score(np.flatnonzero(deal_done), r, made, match_done, out)
        if (made != n_steps).any():  # the lockstep argument of the class docstring
            raise RuntimeError("a learner column did not make exactly n_steps decisions")
        out.last_dones[:] = self._episode_start
        out.last_values[:] = self._bootstrap(decide)
        return out

    def _score(self, games, r, made, match_done, out: Rollout) -> None:
        """Deal points onto each learner column's last decision of the deal; the
        league games' deals into the pool's win-rate table."""
        league = games[self._league[games]]
        if len(league):
            seat = np.argmax(self.learner[league], axis=1)  # a seat of the learner's team
            self.pool.record(self.opponent[league], r[league, seat])
        for seat in range(4):
            cols = self.column[games, seat]
            ok = cols >= 0
            g, c = games[ok], cols[ok]
            out.rewards[made[c] - 1, c] += r[g, seat]
            self._return[c] += r[g, seat]
        if self.credit == "deal":  # the advantages stop at the deal's end
            c = self.column[games].ravel()
            self._episode_start[c[c >= 0]] = True
        ended = games[match_done[games]]
        if len(ended):
            for c in self.column[ended].ravel():
                if c >= 0:
                    out.episodes.append((int(c), float(self._return[c]), int(self._length[c])))
            c = self.column[ended].ravel()
            c = c[c >= 0]
            self._episode_start[c] = True
            self._return[c] = 0
            self._length[c] = 0
            self._draw(ended[self._league[ended] | self._partnered[ended]])

    def _bootstrap(self, decide) -> np.ndarray:
        """Each column's value at its next decision: play the trick just begun up
        to its last seat's first decision (the policy sampling, opponents as
        usual), then put the games back as they were."""
        game = self.game
        saved = (game.state.copy(), game.obs.copy(), game.mask.copy(),
                 game.obs_indices.copy(), game.hidden_indices.copy())
        out = np.zeros(self.num_columns, np.float32)
        valued = np.zeros(self.num_columns, bool)
        rows = np.arange(self.num_games)
        actions = np.zeros(self.num_games, np.int64)
        last = self._steps_a_trick - (2 if self.signs else 1)  # the fourth seat's first
        for j in range(last + 1):
            seat = game.to_act.astype(np.int64)
            policy = self.policy_seat[rows, seat]
            pg = rows[policy]
            a, v, _ = decide(learner_inputs(game, self.inputs, pg), game.mask[pg])
            cols = self.column[pg, seat[pg]]
            mine = cols >= 0
            first = ~valued[cols[mine]]  # a column's next decision, not its card after it
            out[cols[mine][first]] = v[mine][first]
            valued[cols[mine]] = True
            if j == last:
                break
            actions[pg] = a
            if not policy.all():
                self._opponents_act(rows[~policy], actions)
            game.step(actions)
        for now, before in zip((game.state, game.obs, game.mask, game.obs_indices,
                                game.hidden_indices), saved):
            now[...] = before
        return out
