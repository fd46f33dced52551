"""OpenSpiel on Aluette: ISMCTS against the shipped ``ai``, then an OpenSpiel RL
algorithm through ``rl_environment``.

Tested with open-spiel 2.0.2, torch 2.13.0 (``pip install 'aluette-rl[openspiel]'``).
Importing :mod:`aluette_env.openspiel` registers the game ``python_aluette``.

1. ``ISMCTSBot`` (random rollouts) plays team 0 on the real game state; team 1
   is ``ai``, the shipped policy, as a ``pyspiel.Bot`` (``player_bot``). The
   bot draws its worlds with ``resample_from_infostate`` through a seeded
   resampler, so a run repeats.
2. ``rl_environment.Environment`` over the same game feeds OpenSpiel's PyTorch
   ``PolicyGradient`` (A2C) agents, one per seat, the ``information_state_tensor``
   and the legal actions; they play and learn for a few episodes.

    python examples/openspiel_ismcts.py            # 20 deals, 200 episodes
    python examples/openspiel_ismcts.py --quick    # 2 deals, 4 episodes (the test)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from aluette_env.commands import seed_int

# OpenSpiel (and with it torch) loads in the functions that use it, once the
# arguments are checked: a bad one is refused at once.


def ismcts_against_ai(deals: int, simulations: int, seed: int) -> list[float]:
    """Team 0's points per deal, ISMCTS on seats 0 and 2, ``ai`` on 1 and 3."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from aluette_env.openspiel import GAME_NAME, seeded_resampler
    from aluette_env.players.spiel import player_bot

    rs = np.random.RandomState(seed)
    points = []
    for k in range(deals):
        game = pyspiel.load_game(GAME_NAME, {"num_deals": 1, "first_dealer": k % 4})
        search = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), uct_c=2.0,
                                  max_simulations=simulations, random_state=rs)
        search.set_resampler(seeded_resampler(rs))
        ai = player_bot("ai")
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                cards, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rs.choice(cards, p=probs)))
            else:
                bot = search if state.current_player() % 2 == 0 else ai
                state.apply_action(int(bot.step(state)))
        points.append(state.returns()[0])
    return points


def policy_gradient(episodes: int, seed: int) -> tuple[float, int]:
    """A2C agents on every seat for ``episodes`` one-deal matches: (seconds, steps)."""
    import pyspiel
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch.policy_gradient import PolicyGradient

    from aluette_env.openspiel import GAME_NAME

    game = pyspiel.load_game(GAME_NAME, {"num_deals": 1})
    env = rl_environment.Environment(game, seed=seed)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [PolicyGradient(p, size, actions, loss_str="a2c", hidden_layers_sizes=(64,),
                             batch_size=4) for p in range(game.num_players())]
    steps, start = 0, time.perf_counter()
    for _ in range(episodes):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            out = agents[player].step(step)
            assert out.action in step.observations["legal_actions"][player]
            step = env.step([out.action])
            steps += 1
        for agent in agents:  # every agent sees the end and learns from its episode
            agent.step(step)
    return time.perf_counter() - start, steps


def main(argv: list[str] | None = None) -> dict:
    # usage suppressed: a bad argument is one line on stderr (exit 2), as aluette's own
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], usage=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="2 deals, 4 episodes")
    parser.add_argument("--seed", type=seed_int, default=0, help="0 to 2**32 - 1")
    args = parser.parse_args(argv)
    deals, simulations, episodes = (2, 20, 4) if args.quick else (20, 200, 200)
    points = ismcts_against_ai(deals, simulations, args.seed)
    print(f"openspiel: ISMCTS ({simulations} simulations) vs ai over {deals} deals: "
          f"{np.mean(points):+.2f} points per deal for ISMCTS's team")
    seconds, steps = policy_gradient(episodes, args.seed)
    print(f"openspiel: A2C through rl_environment, {episodes} episodes, {steps} steps at "
          f"{steps / seconds:.0f} steps/s (learning included)")
    return {"points": points, "steps_per_second": steps / seconds}


if __name__ == "__main__":
    main()
