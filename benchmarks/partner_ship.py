"""Does a candidate policy meet the shipping rules of a partner AI? (docs/PARTNERS.md)

On each evaluation seed, over ``--deals`` deal pairs (10,000 for a decision):

1. beside ``heuristic`` (the careful rule-based player), against two copies of
   the baseline, the candidate lifts the team by at least ``--min-lift`` over a
   second ``heuristic``;
2. no partner of the partner panel gets less from the candidate than from the
   baseline: each lift over the baseline as partner has a 95 % interval that
   reaches 0 or above;
3. head to head the candidate is not below the baseline (mean >= -0.01);
4. the strength panel's minimum (its rule-based players and earlier policies,
   :data:`STRENGTH`) is not lower than the baseline's.

    python benchmarks/partner_ship.py CANDIDATE.onnx [--baseline ai:version=N]
        [--seeds 770077,880088] [--deals 10000] [--json PATH]

Prints a line per check and seed, and PASS or FAIL; exits 0 either way (a
benchmark reports, it does not gate).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aluette_env.evaluation import PANEL, PARTNERS, duplicate_eval, panel_eval, partner_eval
from aluette_env.players.onnx_policy import LATEST_VERSION

#: The strength panel's members that are neither candidate nor baseline: the panel
#: without the shipped ``ai`` (the baseline, or the model a candidate replaces) and
#: without the search player.
STRENGTH = [m for m in PANEL if m != "ai" and not m.startswith("pimc")]


def partners_for(baseline: str) -> list[str]:
    """The partner panel with the baseline named explicitly (``ai`` moves when a new
    version ships; the careless partner is the baseline at temperature 2)."""
    out = []
    for p in PARTNERS:
        if p == "ai":
            p = baseline
        elif p == "ai:temperature=2":
            p = f"{baseline},temperature=2" if ":" in baseline else f"{baseline}:temperature=2"
        out.append(p)
    return list(dict.fromkeys(out))


def check(candidate: str, baseline: str, seed: int, deals: int, min_lift: float) -> dict:
    out: dict = {"seed": seed}
    beside = partner_eval(candidate, ["heuristic"], opponent=baseline, deals=deals, seed=seed)
    row = beside.rows["heuristic"]
    out["lift_beside_heuristic"] = {"lift": row.lift, "ci95": row.lift_ci95,
                                    "pass": row.lift >= min_lift}
    panel = partner_eval(candidate, partners_for(baseline), opponent=baseline,
                         reference=baseline, deals=deals, seed=seed)
    out["over_baseline"] = {p: {"lift": r.lift, "ci95": r.lift_ci95, "pass": r.lift_ci95[1] >= 0}
                            for p, r in panel.rows.items()}
    head = duplicate_eval(candidate, baseline, deals=deals, seed=seed)
    out["head_to_head"] = {"points_per_deal": head.points_per_deal,
                           "ci95": head.points_per_deal_ci95,
                           "pass": head.points_per_deal >= -0.01}
    mine = panel_eval(candidate, STRENGTH, deals=deals, seed=seed)
    theirs = panel_eval(baseline, STRENGTH, deals=deals, seed=seed)
    out["panel_minimum"] = {"candidate": mine.minimum.to_json(),
                            "baseline": theirs.minimum.to_json(),
                            "pass": mine.minimum.points_per_deal
                            >= theirs.minimum.points_per_deal}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("candidate")
    p.add_argument("--baseline", default=f"ai:version={LATEST_VERSION}",
                   help="the shipped AI the candidate would replace (default: the latest)")
    p.add_argument("--seeds", default="770077,880088")
    p.add_argument("--deals", type=int, default=10000)
    p.add_argument("--min-lift", type=float, default=0.06)
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    results = [check(args.candidate, args.baseline, int(s), args.deals, args.min_lift)
               for s in args.seeds.split(",")]
    ok = True
    for r in results:
        s = r["seed"]
        b = r["lift_beside_heuristic"]
        print(f"seed {s}: lift beside heuristic {b['lift']:+.4f} "
              f"[{b['ci95'][0]:+.4f}, {b['ci95'][1]:+.4f}] (>= {args.min_lift:+.2f}): "
              f"{'pass' if b['pass'] else 'FAIL'}")
        for partner, o in r["over_baseline"].items():
            print(f"seed {s}: beside {partner}, over {args.baseline}: {o['lift']:+.4f} "
                  f"[{o['ci95'][0]:+.4f}, {o['ci95'][1]:+.4f}]: {'pass' if o['pass'] else 'FAIL'}")
        h = r["head_to_head"]
        print(f"seed {s}: head to head {h['points_per_deal']:+.4f} "
              f"[{h['ci95'][0]:+.4f}, {h['ci95'][1]:+.4f}] (>= -0.01): "
              f"{'pass' if h['pass'] else 'FAIL'}")
        m = r["panel_minimum"]
        print(f"seed {s}: panel minimum {m['candidate']['points_per_deal']:+.4f} "
              f"({m['candidate']['member']}) against the baseline's "
              f"{m['baseline']['points_per_deal']:+.4f} ({m['baseline']['member']}): "
              f"{'pass' if m['pass'] else 'FAIL'}")
        ok &= b["pass"] and h["pass"] and m["pass"] and all(
            o["pass"] for o in r["over_baseline"].values())
    print("PASS" if ok else "FAIL")
    if args.json:
        args.json.write_text(json.dumps({"candidate": args.candidate, "baseline": args.baseline,
                                         "deals": args.deals, "seeds": results,
                                         "pass": bool(ok)}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
