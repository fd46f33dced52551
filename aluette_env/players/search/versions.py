"""The expert's versions and every option of the ``expert`` and ``pimc`` specs,
declared once: the spec parser, the players' constructors and their names
(the options that differ from these defaults) all read :data:`OPTIONS` and
:data:`PIMC_OPTIONS`."""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import SEED, Option


class Version(NamedTuple):
    """One version of the expert: its guiding policy, its worlds and what its
    belief reads (``trick``: the plays of the trick in progress; ``deal``: every
    play of the deal)."""

    policy: str
    worlds: int
    infer: str
    #: Tricks ended before a value network values the position (0: every rollout
    #: played to the end of the deal), and that network (a shipped one, ``v1``).
    depth: int = 0
    value: str = "v1"


#: The expert's versions (spec ``expert:version=N``). The newest is the default and
#: follows the ``policy``, ``worlds`` and ``infer`` options; an older version keeps
#: its guide, and its worlds and inference unless they are set. Version 5 is guided
#: by v4, not by the newer ``ai`` v5: v5 reads the history's 432 more inputs, which
#: makes the search 1.6 times as costly a move (docs/SEARCH.md). Version 6 is guided
#: by ``ai`` v6 and pays for its dearer rollout steps with fewer worlds: 200, at
#: version 5's CPU per move.
VERSIONS: dict[int, Version] = {
    1: Version("ai:version=2", 144, "trick"), 2: Version("ai:version=3", 144, "trick"),
    3: Version("ai:version=4", 144, "trick"), 4: Version("ai:version=4", 320, "trick"),
    5: Version("ai:version=4", 320, "deal"), 6: Version("ai:version=6", 200, "deal"),
}
LATEST = max(VERSIONS)

#: The ``expert`` spec's options and their defaults (``worlds``, ``policy`` and
#: ``infer``: the newest version's; an older version's own stand for them when
#: unset). In the order the player's name lists the options it changes.
OPTIONS: dict[str, Option] = {
    "worlds": Option(int, VERSIONS[LATEST].worlds, "sampled worlds per decision (an "
                     "older version: its own)", lambda v: 1 <= v <= 4096,
                     "an integer from 1 to 4096"),
    "solve_tricks": Option(int, 0, "solve exactly once this many tricks remain "
                           "(0: never; rollouts by the policy measured as strong)",
                           lambda v: 0 <= v <= 7, "an integer from 0 (never) to 7"),
    "solve_worlds": Option(int, 32, "sampled worlds per decision once solving exactly "
                           "(each costs far more than a rollout)",
                           lambda v: 1 <= v <= 4096, "an integer from 1 to 4096"),
    "policy": Option(str, VERSIONS[LATEST].policy, "the guiding policy: ai (the shipped "
                     "model), ai:version=N, an exported .onnx file, or none (plain PIMC: "
                     "every play searched, worlds unweighted, heuristic rollouts)",
                     lambda v: bool(v.strip()), "ai, ai:version=N, a .onnx path or none"),
    "rollout": Option(str, "ai", "policy of every seat in the rollouts: ai (the guiding "
                      "policy, batched over worlds and plays) or heuristic (v2, compiled)",
                      lambda v: v in ("heuristic", "ai"), "heuristic or ai"),
    "min_prob": Option(float, 0.02, "plays the guiding policy gives less probability "
                       "than this are not searched (0: search every play)",
                       lambda v: 0 <= v < 1, "a number from 0 to below 1"),
    "confidence": Option(float, 1.0, "leave the policy's play only for a play whose mean "
                         "gain over it across the worlds exceeds this many standard "
                         "errors (0: the best mean)",
                         lambda v: 0 <= v <= 10, "a number from 0 to 10"),
    "belief": Option(float, 0.9, "weight of the guiding policy in the model of how the "
                     "other seats chose this trick's cards, which weights the worlds "
                     "(the rest: any legal card alike; 0: worlds unweighted)",
                     lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "draws": Option(int, 4, "worlds drawn per world searched, to be weighted by belief",
                    lambda v: 1 <= v <= 64, "an integer from 1 to 64"),
    "depth": Option(int, VERSIONS[LATEST].depth, "rollouts stop once this many tricks "
                    "have ended (1: the end of the current trick) and the value network "
                    "values the position reached; 0: every rollout to the end of the deal "
                    "(an older version: its own)", lambda v: 0 <= v <= 8,
                    "an integer from 0 (rollouts to the end) to 8"),
    "value": Option(str, VERSIONS[LATEST].value, "the value network read at the depth "
                    "limit: v1 (shipped) or an .onnx file made by python -m "
                    "training.value_net", lambda v: bool(v.strip()), "v1 or a .onnx path"),
    "max_seconds": Option(float, 0.0, "time budget per move, 0 = none (deterministic)",
                          lambda v: 0 <= v <= 3600, "a number of seconds from 0 to 3600"),
    "version": Option(int, LATEST, "which expert: "
                      + ", ".join(f"{v} (guided by {x.policy}, {x.worlds} worlds, infers "
                                  f"from the {x.infer}"
                                  + (f", rollouts to trick {x.depth} ahead" if x.depth else "")
                                  + ")" for v, x in VERSIONS.items())
                      + f"; the default {LATEST} follows the policy and worlds options",
                      lambda v: v in VERSIONS, " or ".join(map(str, VERSIONS))),
    "infer": Option(str, VERSIONS[LATEST].infer, "what the belief reads: deal (every "
                    "play of the other seats this deal, each from that seat's view at "
                    "the time) or trick (the plays of the trick in progress only)",
                    lambda v: v in ("deal", "trick"), "deal or trick"),
    "min_ess": Option(float, 0.25, "infer=deal: the drawn worlds' likelihoods are "
                      "tempered (raised to a power below 1) until their effective "
                      "sample size is at least this share of the worlds searched",
                      lambda v: 0 <= v <= 1, "a number from 0 to 1"),
    "infer_rows": Option(int, 4096, "infer=deal: the most policy evaluations a "
                         "decision spends weighing drawn worlds (fewer draws when the "
                         "deal has many plays, never fewer than worlds)",
                         lambda v: 1 <= v <= 1 << 20, "an integer from 1 to 1048576"),
    "sampler": Option(str, "uniform", "how the worlds are drawn before the belief weighs "
                      "them by the plays: uniform (every deal consistent with what the seat "
                      "saw alike), net (each hidden card from the shipped belief network's "
                      "probabilities of its place; with belief=0, its worlds unweighted) or "
                      "an .onnx file made by python -m training.belief_net",
                      lambda v: bool(v.strip()), "uniform, net or a .onnx path"),
    "signs": Option(bool, True, "at a table with signs (docs/SIGNS.md): make the truthful "
                    "convention's signs (it always reads the signs it sees and puts the "
                    "signed cards where the signs say); false: make no sign",
                    lambda v: isinstance(v, bool), "true or false"),
    "seed": SEED,
}

#: The ``pimc`` spec's options (the preset fixes every other option of the expert).
PIMC_OPTIONS: dict[str, Option] = {
    "worlds": Option(int, 16, "sampled worlds per decision", lambda v: 1 <= v <= 4096,
                     "an integer from 1 to 4096"),
    "solve_tricks": Option(int, 4, "solve exactly once this many tricks remain (0: never)",
                           lambda v: 0 <= v <= 7, "an integer from 0 (never) to 7"),
    "max_seconds": OPTIONS["max_seconds"],
    "signs": OPTIONS["signs"],
    "seed": SEED,
}


def with_defaults(declared: dict[str, Option], given: dict[str, Any], who: str,
                  defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every option of ``declared``, in its order: the value ``given`` (None: unset)
    or the default (``defaults`` first, then the declaration's). TypeError naming
    an option ``declared`` lacks, as for a keyword argument a function lacks."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise TypeError(f"{who} got an unexpected keyword argument {unknown[0]!r}; options: "
                        f"{', '.join(sorted(declared))}")
    defaults = defaults or {}
    return {k: given[k] if given.get(k) is not None else defaults.get(k, option.default)
            for k, option in declared.items()}


def check(declared: dict[str, Option], values: dict[str, Any]) -> None:
    """ValueError naming the first value of the wrong kind or outside what its
    option allows (an int stands for a float)."""
    for key, value in values.items():
        option = declared[key]
        if not isinstance(value, option.kind) and not (option.kind is float and
                                                       isinstance(value, int)):
            raise ValueError(f"{key} must be {option.allowed}, got {value!r}")
        if not option.check(value):
            raise ValueError(f"{key} must be {option.allowed}, got {value!r}")
