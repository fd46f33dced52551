"""``expert``: a search player guided by a trained policy, Perfect Information
Monte Carlo over belief-weighted worlds.

For each decision:

* **Candidates.** The guiding policy (``policy``) scores the legal cards; plays it
  gives less than ``min_prob`` are not searched. Plays of equal worth in every
  world are tried once: two levels in its hand with no unseen card and no card
  of the trick at or between them.
* **Worlds.** It samples deals consistent with what its seat has seen (its
  hand and every card played; the unseen cards split at random between the
  three other hands and the twelve unused cards), draws more worlds than it
  searches and keeps them in proportion to how likely the other seats were to
  play as they did in that world: the policy from each player's own view,
  mixed with a uniform choice (``belief``), so a world where the partner would
  have won a trick but did not weighs little. Versions 5 and 6 (``infer=deal``)
  weighs every play of the other seats this deal: each world is replayed from
  the deal's start by the game's step (perfect recall: the observation holds
  the whole order of play), each play judged from its player's view at the
  time, as many draws as ``infer_rows`` policy evaluations allow, and the
  likelihoods tempered (raised to a power below 1) so that at least
  ``min_ess`` of the worlds' weight stays spread (the policy models the other
  players; it is not them). Versions 1-4 (``infer=trick``) weigh only the
  plays of the trick in progress, ``draws`` times more worlds than searched.
  With ``sampler=net`` the worlds are drawn from a belief network's
  probabilities of each hidden card's place, read from the seat's
  observation alone (:mod:`.places`), instead of uniformly; the plays weigh
  them as they weigh uniform draws (``belief=0``: not at all).
* **Values.** While more than ``solve_tricks`` tricks remain, each world and
  candidate is rolled out to the end of the deal on the batched engine's
  kernels (the rules as :mod:`aluette_env.vector` states them), every seat
  playing the policy from its own view (``rollout=heuristic``: heuristic v2,
  compiled); all worlds and candidates of a decision are one batch. Once at
  most ``solve_tricks`` tricks remain, exactly, by the numba
  perfect-information solver (:func:`~aluette_env.players.solver.solve`),
  over ``solve_worlds`` worlds.
* **Choice.** It keeps the policy's own card unless another play's mean gain
  over it, paired world by world, exceeds ``confidence`` standard errors:
  search corrects the policy where the evidence is clear, and otherwise
  leaves its judgement (which reads the table better than uniform worlds do)
  alone.

Deterministic for a seed: the worlds of a decision are drawn from the seed
and the observation (not from the call order), so the same position gets the
same move in any process. ``max_seconds`` > 0 stops sampling once a move has
used that much time (at least 8 worlds); moves then depend on the machine's
speed, so the default 0 keeps play reproducible.

``policy`` names the guiding policy (``ai:version=6`` by default; ``ai``, the
shipped model, or an exported ``.onnx`` file), or ``none`` for plain PIMC:
every play searched, worlds unweighted, heuristic rollouts, the best mean.
The spec ``pimc`` is that preset (:func:`pimc`). ``version=1`` is the expert as
first shipped, guided by ``ai`` v2, ``version=2`` the one guided by v3 and
``version=3`` the one guided by v4, each at 144 worlds; version 4 is guided by
v4 at 320 worlds; version 5 is guided by v4 at 320 worlds and reads the whole
deal; the default, version 6, is the same guided by ``ai`` v6 at 200 worlds
(:data:`VERSIONS`).

:meth:`ExpertPlayer.card_values` gives the search's estimate for every legal
card (mean points for the player's team and standard errors), for hints,
reviews and training targets.

The observation is read by :func:`aluette_env.observation.read_view`, and
every rule (trick winner, tally, scoring) is the game core's own function,
compiled through :mod:`aluette_env._jit`.

One module per job: :mod:`.worlds` (the decision read as the engine's arrays,
and the deals consistent with it), :mod:`.belief` (the worlds weighed by the
plays seen), :mod:`.rollouts` (each play's value in each world: rollouts and
exact endgames), :mod:`.choice` (the plays searched, the move, the paired
standard error, :class:`CardValues`), :mod:`.versions` (:data:`VERSIONS` and
every option, declared once) and :mod:`.player` (:class:`ExpertPlayer`,
:func:`pimc`, :func:`guiding_policy`). ``aluette_env.players.expert`` re-exports
these names for older imports.
"""

from .choice import CardValues
from .player import WORLD_CHUNK, ExpertPlayer, guiding_policy, pimc
from .versions import LATEST, OPTIONS, PIMC_OPTIONS, VERSIONS, Version
from .worlds import UNUSED

__all__ = ["LATEST", "OPTIONS", "PIMC_OPTIONS", "UNUSED", "VERSIONS", "WORLD_CHUNK", "CardValues",
           "ExpertPlayer", "Version", "guiding_policy", "pimc"]
