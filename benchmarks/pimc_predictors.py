"""Is strategy fusion the problem? The three predictors of how much Perfect
Information Monte Carlo loses (Long, Sturtevant, Buro & Furtak, AAAI 2010:
leaf correlation, bias, disambiguation factor) measured on Aluette, and the
log-likelihood of the true hidden cards under each way of drawing worlds, on
the same positions.

    python benchmarks/pimc_predictors.py [--deals 400] [--seed 0] [--player ai]
        [--likelihood-deals 50] [--worlds 320] [--follow-deals 200]
        [--belief-head RUN.zip] [--belief-net PATH.onnx] [--skip PARTS]

The positions are every decision of ``--deals`` one-deal games with
``--player`` at the four seats (``--table``, its old name, is read too; the
deals of ``env.reset(seed=seed * 100_003 + d)``, as ``benchmarks/belief.py``).
Each figure is computed as follows
(docs/SEARCH.md, "Is strategy fusion the problem?" and "Which worlds place the
hidden cards best"):

* **leaf correlation**: at each decision with at most ``MAX_TRICKS_LEFT``
  tricks left (the trick in progress counted) and plays of two or more
  strengths, the exact value of the deal (the solver, on the true hands) after
  each play. The paper's figure is the share of decisions whose children are
  all leaves (here the last seat of the eighth trick: the ninth is forced)
  where both children have the same payoff; the same share at every decision
  with 2, 3 and 4 tricks left says how late a choice still changes the result.
* **bias**: of those sibling leaves with the same payoff, the share that are a
  win for the deciding seat's team; and from the start of the trick with
  ``BIAS_TRICKS_LEFT`` left, solved exactly on the true hands, the share of
  deals team 0 and the trick leader's team win at perfect play, and the share
  worth two points (Mordienne).
* **disambiguation**: how fast the deals consistent with a seat's view (its
  hand and every card played; no inference) shrink as the other seats play,
  beside the same deck dealt the same way with suit-following (a card of the
  suit led when the hand holds one; otherwise a void is shown), both played at
  random over ``--follow-deals`` deals. ``df`` is the share of the consistent
  deals a play by another seat rules out, averaged over those plays: the
  probability that the next card tells apart two deals the seat could not.
* **log-likelihood**: at every decision of the first ``--likelihood-deals``
  deals, the log-probability of each hidden card's true place (a seat, or out
  of the deal) under the exact uniform marginal, the worlds ``expert`` v5 and
  v4 would search (``--worlds``; marginals from their weights, plus one
  pseudo-world at the uniform marginal so that a place never drawn stays
  possible), with ``--belief-head`` a training checkpoint's belief head
  (its four probabilities per card normalised, or also scaled until each
  place holds its number of cards, as in any drawn world), and with
  ``--belief-net`` a belief network (``python -m training.belief_net``; sized
  as the head's).
"""

from __future__ import annotations

import argparse
import math
import time
from typing import NamedTuple

import numpy as np

import aluette_env
from aluette_env.evaluation.duplicate import mean_ci95, wilson_ci95
from aluette_env.game import (
    NUM_CARDS, NUM_SEATS, NUM_TRICKS, STRENGTH, relative_seat, seat_at, team_of,
)
from aluette_env.game.cards import suit_of
from aluette_env.players import load_player
from aluette_env.players.search import ExpertPlayer
from aluette_env.players.solver import Position, Solver

#: Leaf correlation is measured at decisions with at most this many tricks left.
MAX_TRICKS_LEFT = 4
#: Bias at perfect play is measured from the start of the trick with this many left.
BIAS_TRICKS_LEFT = 6
OUT = 4  # the location of a card out of the deal (relative seats are 1-3)
#: Pseudo-worlds at the uniform marginal added to a sampler's counts (smoothing).
PSEUDO_WORLDS = 1.0
SAMPLERS = {"deal (v5)": dict(infer="deal"), "trick (v4)": dict(infer="trick"),
            "uniform, drawn": dict(belief=0.0)}
#: With --belief-net: v5's sampler drawing its worlds from the network; the network's
#: worlds unweighted.
NET_DRAWS, NET_ALONE = "deal, net draws", "net, drawn"


class Decision(NamedTuple):
    deal: int
    seat: int
    trick: int  # 0-8
    n_in: int  # cards already in the trick
    position: Position  # the true deal from here, for the solver
    observation: np.ndarray
    mask: np.ndarray
    #: [48] where each card is seen from ``seat``: 1-3 the relative seat holding
    #: it, OUT out of the deal, -1 seen (its hand or played).
    truth: np.ndarray


def play_decisions(spec: str, deals: int, seed: int) -> list[Decision]:
    """Every decision of ``deals`` one-deal games with ``spec`` at all four seats."""
    player = load_player(spec, seed=seed)
    env = aluette_env.raw_env(num_deals=1)
    out = []
    for d in range(deals):
        env.reset(seed=seed * 100_003 + d)
        played: set[int] = set()
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            deal = env.deal
            seat = deal.to_act
            hands = deal.hands
            truth = np.full(NUM_CARDS, OUT, np.int8)
            for s in range(NUM_SEATS):
                truth[hands[s]] = -1 if s == seat else relative_seat(s, seat)
            truth[list(played)] = -1
            pos = Position.from_cards(hands, deal.leader, deal.trick_cards, counts=deal.counts,
                                      reached=deal.reached, in_run=deal.in_run,
                                      trick_index=deal.trick_index)
            o = env.observe(agent)
            out.append(Decision(d, seat, deal.trick_index, len(deal.trick_cards), pos,
                                o["observation"], o["action_mask"], truth))
            card = int(player.act_batch(o["observation"][None], o["action_mask"][None])[0])
            played.add(card)
            env.step(card)
    return out


# --------------------------------------------------------------------------- leaf correlation, bias


class Siblings(NamedTuple):
    tricks_left: int
    n_in: int
    values: list[int]  # the deal's exact value for the deciding seat's team after each play


def sibling_values(decisions: list[Decision], solver: Solver) -> list[Siblings]:
    """The exact value after each play of different strength, at every decision
    with at most MAX_TRICKS_LEFT tricks left and a choice to make."""
    out = []
    for d in decisions:
        left = NUM_TRICKS - d.trick
        if left > MAX_TRICKS_LEFT or len(set(d.position.hands[d.seat])) < 2:
            continue
        sign = 1 if team_of(d.seat) == 0 else -1
        values = [sign * v for v in solver.move_values(d.position).values()]
        out.append(Siblings(left, d.n_in, values))
    return out


def equal_pairs(values: list[int]) -> float:
    """The share of pairs of different plays whose values are equal."""
    pairs = [(a, b) for i, a in enumerate(values) for b in values[i + 1:]]
    return sum(a == b for a, b in pairs) / len(pairs)


def perfect_play_values(decisions: list[Decision], solver: Solver) -> list[tuple[int, int]]:
    """(value for team 0, the leader's team) of each deal from the start of the
    trick with BIAS_TRICKS_LEFT tricks left, solved exactly on the true hands."""
    out = []
    for d in decisions:
        if NUM_TRICKS - d.trick == BIAS_TRICKS_LEFT and d.n_in == 0:
            out.append((solver.value(d.position), team_of(d.position.leader)))
    return out


# --------------------------------------------------------------------------- disambiguation


def count_deals(sizes: tuple[int, int, int, int], unseen_by_suit: list[int],
                void: np.ndarray) -> float:
    """How many deals of the unseen cards give ``sizes[r]`` of them to location r
    (0-2: the other seats, 3: out of the deal) with no card of suit k at a seat
    r with ``void[r, k]``: the coefficient of prod z_r^sizes[r] in
    prod_k (sum of the z_r allowed suit k)^(unseen cards of suit k)."""
    poly = np.zeros([n + 1 for n in sizes])
    poly[0, 0, 0, 0] = 1.0
    for k, m in enumerate(unseen_by_suit):
        allowed = [r for r in range(4) if r == 3 or not void[r, k]]
        for _ in range(m):
            grown = np.zeros_like(poly)
            for r in allowed:
                dst = [slice(None)] * 4
                src = [slice(None)] * 4
                dst[r], src[r] = slice(1, None), slice(None, -1)
                grown[tuple(dst)] += poly[tuple(src)]
            poly = grown
    return float(poly[sizes])


class Shrink(NamedTuple):
    trick: int
    log10_any: float  # log10 of the deals consistent before the play, any card legal (Aluette)
    log10_follow: float  # the same with suit-following
    ruled_out_any: float  # the share of them the play rules out
    ruled_out_follow: float
    void_shown: bool


def follow_suit_shrink(deals: int, seed: int) -> list[Shrink]:
    """Every play by another seat, from each seat's view, in ``deals`` deals of the
    Aluette deck (nine cards each, twelve out) played at random with
    suit-following, the highest card of the suit led winning: the consistent
    deals before and after each play, with and without the voids it shows."""
    rng = np.random.default_rng([seed, 20_100])
    out = []
    for _ in range(deals):
        deck = rng.permutation(NUM_CARDS)
        hands = [list(deck[9 * s:9 * s + 9]) for s in range(NUM_SEATS)]
        void = np.zeros((NUM_SEATS, 4), bool)
        played: set[int] = set()
        leader = int(rng.integers(NUM_SEATS))
        for t in range(NUM_TRICKS):
            led = -1
            trick = []
            for k in range(NUM_SEATS):
                seat = seat_at(leader, k)
                hand = hands[seat]
                follow = [c for c in hand if suit_of(c) == led]
                card = int(rng.choice(follow if follow else hand))
                shows_void = k > 0 and not follow
                for observer in range(NUM_SEATS):
                    if observer != seat:
                        out.append(_shrink(t, observer, seat, card, hands, played, void,
                                           led if shows_void else -1))
                if shows_void:
                    void[seat, led] = True
                if k == 0:
                    led = suit_of(card)
                hand.remove(card)
                played.add(card)
                trick.append(card)
            best = max((c for c in trick if suit_of(c) == led), key=lambda c: STRENGTH[c])
            leader = seat_at(leader, trick.index(best))
    return out


def _shrink(t, observer, seat, card, hands, played, void, shown) -> Shrink:
    """The consistent deals from ``observer``'s view before and after ``seat`` plays
    ``card`` (showing a void in suit ``shown``, -1 none)."""
    others = [seat_at(observer, r) for r in (1, 2, 3)]
    seen = set(hands[observer]) | played

    def deals_consistent(voids: np.ndarray, gone: int) -> tuple[float, float]:
        unseen = [c for c in range(NUM_CARDS) if c not in seen and c != gone]
        by_suit = [sum(suit_of(c) == k for c in unseen) for k in range(4)]
        sizes = tuple(len(hands[s]) - (s == seat and gone >= 0) for s in others)
        sizes = (*sizes, len(unseen) - sum(sizes))
        void_rel = np.zeros((4, 4), bool)
        void_rel[:3] = voids[others]
        return count_deals(sizes, by_suit, np.zeros((4, 4), bool)), \
            count_deals(sizes, by_suit, void_rel)

    any_before, follow_before = deals_consistent(void, -1)
    after_void = void.copy()
    if shown >= 0:
        after_void[seat, shown] = True
    any_after, follow_after = deals_consistent(after_void, card)
    # Before the play, ``seat`` holds ``card`` in only some consistent deals: the
    # deals after it, with ``card`` put back in its hand, are those that remain.
    return Shrink(t, math.log10(any_before), math.log10(follow_before),
                  1 - any_after / any_before, 1 - follow_after / follow_before, shown >= 0)


def df_without_voids(players: int, hand: int, out: int) -> float:
    """The mean df of a game where a play shows nothing but its card: ``players``
    hands of ``hand`` cards and ``out`` cards dealt to no one, from one seat's view,
    each trick led by any seat alike. A play by a seat holding h of the n cards
    that seat cannot see rules out 1 - h / n of the consistent deals."""
    shares = []
    for t in range(hand):
        for leader in range(players):
            sizes = [hand - t] * players
            unseen = (players - 1) * (hand - t) + out
            for k in range(players):
                seat = (leader + k) % players
                if seat != 0:
                    shares.append(1 - sizes[seat] / unseen)
                    unseen -= 1
                sizes[seat] -= 1
    return float(np.mean(shares))


# --------------------------------------------------------------------------- log-likelihood


def uniform_marginals(truth: np.ndarray) -> np.ndarray:
    """[48, 5] each hidden card's probability of each location (1-3, OUT) when every
    consistent deal is alike: the location's share of the hidden cards."""
    hidden = truth >= 0
    sizes = np.bincount(truth[hidden], minlength=OUT + 1).astype(float)
    return np.where(hidden[:, None], sizes[None, :] / hidden.sum(), 0.0)


def sampled_marginals(holders: np.ndarray, weights: np.ndarray, truth: np.ndarray,
                      pseudo: float = PSEUDO_WORLDS) -> np.ndarray:
    """[48, 5] the weighted share of the worlds that put each card at each location,
    with ``pseudo`` worlds at the uniform marginal added."""
    counts = np.zeros((NUM_CARDS, OUT + 1))
    for loc in range(1, OUT + 1):
        counts[:, loc] = weights @ (holders == loc)
    return (counts + pseudo * uniform_marginals(truth)) / (weights.sum() + pseudo)


def log_likelihood(marginals: np.ndarray, truth: np.ndarray) -> float:
    """The mean log-probability (nats) of each hidden card's true location."""
    hidden = np.flatnonzero(truth >= 0)
    return float(np.log(marginals[hidden, truth[hidden]]).mean())


def place_marginals(p: np.ndarray, truth: np.ndarray, sized: bool) -> np.ndarray:
    """[48, 5] from ``p`` ([48, 4]: a positive score per card for relative seats 1-3
    and OUT): each hidden card's scores normalised; with ``sized``, then scaled in
    turn (Sinkhorn) until each location also holds its number of hidden cards, as
    every drawn world must."""
    m = np.zeros((NUM_CARDS, OUT + 1))
    m[:, 1:] = np.maximum(p, 1e-9)
    m[truth < 0] = 0.0
    sizes = uniform_marginals(truth).sum(0)
    for _ in range(50 if sized else 1):
        m /= np.maximum(m.sum(1, keepdims=True), 1e-300)
        if sized:
            m *= np.where(sizes > 0, sizes / np.maximum(m.sum(0), 1e-300), 0.0)
    return m / np.maximum(m.sum(1, keepdims=True), 1e-300)


def belief_head_marginals(path: str, decisions: list[Decision]) -> dict[str, list[np.ndarray]]:
    """[48, 5] per decision from a training checkpoint's belief head (a linear head
    on the policy's features, one independent probability per card and location):
    ``normalised`` and ``sized`` (:func:`place_marginals`)."""
    import torch

    from training.sb3.checkpoints import load_model
    policy = load_model(path).policy
    if not hasattr(policy, "belief_net"):
        raise SystemExit(f"{path}: this checkpoint has no belief head (network.belief 0)")
    obs = torch.as_tensor(np.stack([d.observation for d in decisions]), dtype=torch.float32)
    with torch.no_grad():
        logits = policy.belief_net(policy.extract_features(obs)[0]).numpy()
    probs = 1 / (1 + np.exp(-logits.reshape(len(decisions), 4, NUM_CARDS)))
    return {name: [place_marginals(p.T, d.truth, name == "sized")
                   for d, p in zip(decisions, probs)] for name in ("normalised", "sized")}


def belief_net_marginals(path: str, decisions: list[Decision]) -> list[np.ndarray]:
    """[48, 5] per decision from a belief network (``python -m training.belief_net``:
    log-probabilities of each card's place from the seat's observation), sized
    as the head's (:func:`place_marginals`)."""
    from aluette_env.players.search.places import BeliefNet
    try:
        net = BeliefNet(path)
    except ValueError as err:
        raise SystemExit(str(err)) from None
    probs = np.exp(net(np.stack([d.observation for d in decisions])))
    return [place_marginals(p, d.truth, sized=True) for d, p in zip(decisions, probs)]


# --------------------------------------------------------------------------- report


def share(flags) -> str:
    """A share with its 95 % interval (Wilson) and count."""
    flags = list(flags)
    lo, hi = wilson_ci95(sum(flags), len(flags))
    return f"{np.mean(flags):.3f} [{lo:.3f}, {hi:.3f}] (n={len(flags)})"


def report_leaves(decisions: list[Decision], solver: Solver, bias: bool) -> None:
    siblings = sibling_values(decisions, solver)
    print("\n## Leaf correlation (exact values of the true deal after each play)")
    leaves = [s for s in siblings if s.tricks_left == 2 and s.n_in == 3]
    same = [s.values[0] == s.values[1] for s in leaves]
    print(f"the last choice of the deal (last seat of the 8th trick), both plays alike: "
          f"{share(same)}")
    print("tricks left | all plays alike | pairs of plays alike")
    for left in range(2, MAX_TRICKS_LEFT + 1):
        at = [s for s in siblings if s.tricks_left == left]
        print(f"{left:11d} | {share(len(set(s.values)) == 1 for s in at)} | "
              f"{np.mean([equal_pairs(s.values) for s in at]):.3f}")
    if bias:
        alike = [s.values[0] for s, a in zip(leaves, same) if a]
        print("\n## Bias")
        nobody = np.mean([v == 0 for v in alike])
        print(f"sibling leaves alike, a win for the deciding seat's team: "
              f"{share(v > 0 for v in alike)}; nobody scores {nobody:.3f}")


def report_bias(decisions: list[Decision], solver: Solver) -> None:
    values = perfect_play_values(decisions, solver)
    v = np.array([x for x, _ in values])
    lead = np.array([t for _, t in values])
    print(f"perfect play from the start of the trick with {BIAS_TRICKS_LEFT} left: "
          f"team 0 wins {share(v > 0)}; the leader's team wins "
          f"{share(np.where(lead == 0, v > 0, v < 0))}; two points {np.mean(np.abs(v) == 2):.3f}, "
          f"nobody scores {np.mean(v == 0):.3f}")


def report_disambiguation(deals: int, seed: int) -> None:
    shrinks = follow_suit_shrink(deals, seed)
    print(f"\n## Disambiguation ({deals} random deals, every play by another seat from each "
          f"seat's view)")
    print("trick | log10 deals consistent, any card / suit-following | "
          "df, any card / suit-following | plays showing a void")
    for t in range(NUM_TRICKS):
        at = [s for s in shrinks if s.trick == t]
        cols = [np.mean([getattr(s, f) for s in at]) for f in Shrink._fields[1:]]
        print(f"{t + 1:5d} | {cols[0]:6.2f} / {cols[1]:6.2f} | {cols[2]:.3f} / {cols[3]:.3f} | "
              f"{cols[4]:.3f}")
    print(f"every play: df {np.mean([s.ruled_out_any for s in shrinks]):.3f} / "
          f"{np.mean([s.ruled_out_follow for s in shrinks]):.3f}; mean log10 deals consistent "
          f"{np.mean([s.log10_any for s in shrinks]):.2f} / "
          f"{np.mean([s.log10_follow for s in shrinks]):.2f}")
    print(f"df of a play that shows only its card: Aluette {df_without_voids(4, 9, 12):.3f}, "
          f"Skat from the declarer's view {df_without_voids(3, 10, 0):.3f}, Hearts "
          f"{df_without_voids(4, 13, 0):.3f}")


def report_likelihood(decisions: list[Decision], worlds: int, seed: int,
                      belief_head: str | None, belief_net: str | None = None) -> None:
    ll = {"uniform": [log_likelihood(uniform_marginals(d.truth), d.truth) for d in decisions]}
    missed = {}
    samplers = dict(SAMPLERS)
    if belief_net:  # v5's sampler drawing its worlds from the network, and the network alone
        samplers.update({NET_DRAWS: dict(sampler=belief_net),
                         NET_ALONE: dict(sampler=belief_net, belief=0.0)})
    for name, kw in samplers.items():
        expert = ExpertPlayer(version=5, worlds=worlds, seed=seed, **kw)
        ll[name], missed[name] = [], []
        for d in decisions:
            holders, weights = expert.sample_worlds(d.observation, d.mask)
            ll[name].append(log_likelihood(sampled_marginals(holders, weights, d.truth), d.truth))
            hidden = np.flatnonzero(d.truth >= 0)
            missed[name].append(float(np.mean((holders[:, hidden] != d.truth[hidden]).all(0))))
    if belief_head:
        for name, marginals in belief_head_marginals(belief_head, decisions).items():
            ll[f"head, {name}"] = [log_likelihood(m, d.truth) for d, m in zip(decisions, marginals)]
    if belief_net:
        ll["net, sized"] = [log_likelihood(m, d.truth) for d, m in
                            zip(decisions, belief_net_marginals(belief_net, decisions))]
    print(f"\n## Log-likelihood of the true hidden cards (nats per hidden card; samplers: "
          f"{worlds} worlds + {PSEUDO_WORLDS:g} pseudo-world)")
    print("sampler          " + " ".join(f"t{t + 1:<6d}" for t in range(NUM_TRICKS))
          + " all      against uniform by deal [95 % CI]  true place never drawn")
    trick = np.array([d.trick for d in decisions])
    deal = np.array([d.deal for d in decisions])
    base = np.array(ll["uniform"])
    for name, x in ll.items():
        x = np.array(x)
        per = " ".join(f"{x[trick == t].mean():+.3f} " for t in range(NUM_TRICKS))
        gain, (lo, hi) = mean_ci95(np.array([np.mean((x - base)[deal == k])
                                             for k in np.unique(deal)]))
        never = f"{np.mean(missed[name]):.4f}" if name in missed else ""
        print(f"{name:16s} {per} {x.mean():+.4f}  {gain:+.4f} [{lo:+.4f}, {hi:+.4f}]  {never}")
    for name in ("net, sized", NET_DRAWS, NET_ALONE):  # against v5's, on the same decisions
        if name in ll:
            x = np.array(ll[name]) - np.array(ll["deal (v5)"])
            gain, (lo, hi) = mean_ci95(np.array([np.mean(x[deal == k])
                                                 for k in np.unique(deal)]))
            print(f"{name} against deal (v5), by deal: {gain:+.4f} [{lo:+.4f}, {hi:+.4f}]")
    # The gain summed over a position's hidden cards, in log10 (as the consistent
    # deals of the disambiguation table): what reading the plays is worth beside
    # what suit-following would rule out.
    hidden = np.array([(d.truth >= 0).sum() for d in decisions])
    summed = {name: (np.array(ll[name]) - base) * hidden / math.log(10)
              for name in ("deal (v5)", "trick (v4)")}
    print("summed over the hidden cards, log10 (against uniform): " + "; ".join(
        f"{name} " + " ".join(f"{x[trick == t].mean():+.2f}" for t in range(NUM_TRICKS))
        for name, x in summed.items()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--player", "--table", dest="player", default="ai")
    ap.add_argument("--likelihood-deals", type=int, default=50,
                    help="the log-likelihood on the decisions of this many of the deals")
    ap.add_argument("--worlds", type=int, default=320)
    ap.add_argument("--follow-deals", type=int, default=200)
    ap.add_argument("--belief-head", default=None, help="a training checkpoint (.zip) "
                    "with a belief head")
    ap.add_argument("--belief-net", default=None, help="a belief network (.onnx) made by "
                    "python -m training.belief_net")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: "
                    "leaves, bias, disambiguation, likelihood")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    clock = time.process_time()

    def lap() -> None:
        nonlocal clock
        print(f"({time.process_time() - clock:.0f} CPU-s)")
        clock = time.process_time()

    decisions = play_decisions(args.player, args.deals, args.seed)
    print(f"{len(decisions)} decisions of {args.deals} deals, player {args.player}, "
          f"seed {args.seed}")
    lap()
    solver = Solver()
    if "leaves" not in skip:
        report_leaves(decisions, solver, "bias" not in skip)
    if "bias" not in skip:
        report_bias(decisions, solver)
    lap()
    if "disambiguation" not in skip:
        report_disambiguation(args.follow_deals, args.seed)
        lap()
    if "likelihood" not in skip:
        report_likelihood([d for d in decisions if d.deal < args.likelihood_deals],
                          args.worlds, args.seed, args.belief_head, args.belief_net)
        lap()


if __name__ == "__main__":
    main()
