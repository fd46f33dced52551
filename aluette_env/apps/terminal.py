"""``aluette play``: a person plays player_0 with an AI partner (player_2)
against two AIs (player_1 on the left, player_3 on the right), in the terminal.

Choose a card by its number in your hand (or its short name, e.g. ``3Co``),
then confirm with ``y`` (or the same number again); ``n`` or another number
changes the choice. Works with piped input: every prompt reads one line.
"""

from __future__ import annotations

import argparse
import sys
import time

from rich.console import Console
from rich.table import Table

from ..aec import raw_env
from ..game import AGENTS, STRENGTH, card_name, reach_order, seat_of, short_name
from .cli import Command, UsageError

NAMES = {"player_0": "You", "player_1": "Left", "player_2": "Partner", "player_3": "Right"}


class Quit(Exception):
    """The person left (EOF, Ctrl-C or 'q')."""


class TerminalGame:
    def __init__(self, players: dict[int, object], seed: int | None, lang: str, delay: float,
                 console: Console | None = None, stdin=None):
        self.players = players
        self.seed = seed
        self.lang = lang
        self.delay = delay
        self.console = console or Console(highlight=False, soft_wrap=True)
        self.stdin = stdin or sys.stdin
        self.env = raw_env()

    # -- input ----------------------------------------------------------------------

    def ask(self, prompt: str) -> str:
        self.console.print(prompt, end="", markup=False)
        line = self.stdin.readline()
        if not line:
            raise Quit("input ended")
        line = line.strip()
        if not self.stdin.isatty():
            self.console.print(line)  # echo piped answers so a transcript reads well
        if line.lower() in ("q", "quit", "exit"):
            raise Quit("quit")
        return line

    def choose_card(self, hand: list[int]) -> int:
        ordered = sorted(hand, key=lambda c: (-STRENGTH[c], c))
        by_short = {short_name(c).lower(): c for c in ordered}
        selected = None
        while True:
            if selected is None:
                answer = self.ask(f"Your card (1-{len(ordered)}, or a short name like "
                                  f"{short_name(ordered[0])}; q quits): ")
            else:
                answer = self.ask(f"Play {card_name(selected, self.lang)}? "
                                  f"[y = play, n = choose again, or another number]: ")
                if answer.lower() in ("y", "yes", "o", "oui") or \
                        (answer.isdigit() and 1 <= int(answer) <= len(ordered)
                         and ordered[int(answer) - 1] == selected):
                    return selected
                if answer.lower() in ("n", "no", "non"):
                    selected = None
                    continue
            if not answer:
                self.console.print("  Please type a number from your hand (empty line).")
                continue
            if answer.isdigit():
                k = int(answer)
                if 1 <= k <= len(ordered):
                    selected = ordered[k - 1]
                    continue
                self.console.print(f"  {k} is not in 1-{len(ordered)}: pick one of your cards.",
                                   markup=False)
                continue
            if answer.lower() in by_short:
                selected = by_short[answer.lower()]
                continue
            self.console.print(f"  {answer!r} is not a card in your hand; type its number.",
                               markup=False)

    # -- output ---------------------------------------------------------------------

    def board(self) -> None:
        env = self.env
        deal, match = env.deal, env.match
        t = Table(title=f"Deal {match.deal_index + 1}/{match.num_deals} · dealer "
                        f"{NAMES[AGENTS[deal.dealer]]} · trick {deal.trick_index + 1}/9 · "
                        f"match: you+partner {match.points[0]} — {match.points[1]} opponents",
                  show_header=True, header_style="bold")
        t.add_column("seat")
        t.add_column("tricks", justify="right")
        t.add_column("in this trick")
        lead = reach_order(deal.counts, deal.reached)
        played = {(deal.leader + k) % 4: c for k, c in enumerate(deal.trick_cards)}
        for s in range(4):
            mark = " ← leads the deal (reached first)" if lead and lead[0] == s else ""
            card = card_name(played[s], self.lang) if s in played else ""
            t.add_row(f"{NAMES[AGENTS[s]]} ({AGENTS[s]})", f"{deal.counts[s]}{mark}", card)
        self.console.print(t)
        hand = sorted(deal.hands[0], key=lambda c: (-STRENGTH[c], c))
        self.console.print("Your hand (strongest first): " + "  ".join(
            f"[bold]{k}[/bold]) {card_name(c, self.lang)} \\[{short_name(c)}]"
            for k, c in enumerate(hand, 1)))

    def show_play(self, seat: int, card: int) -> None:
        who = NAMES[AGENTS[seat]]
        self.console.print(f"{who} {'play' if seat == 0 else 'plays'} {card_name(card, self.lang)}",
                           markup=False)
        if self.delay > 0:
            time.sleep(self.delay)

    def show_trick(self, trick) -> None:
        who = "spoiled — nobody wins it" if trick.winner is None else \
            f"won by {NAMES[AGENTS[trick.winner]]}"
        self.console.print(f"  Trick {trick.index + 1}: {who}")

    def show_deal(self, res: dict) -> None:
        tw = " ".join("X" if w is None else NAMES[w][0] for w in res["trick_winners"])
        winner = NAMES[res["winner"]] if res["winner"] else "nobody (all tricks spoiled)"
        extra = " with Mordienne!" if res["mordienne"] else ""
        pts = res["points"]
        self.console.print(f"[bold]Deal {res['deal'] + 1} over[/bold]: tricks {tw}; "
                           f"winner {winner}{extra}; points you+partner {pts['team_0']}, "
                           f"opponents {pts['team_1']}")

    # -- the game ---------------------------------------------------------------------

    def play_match(self) -> None:
        env = self.env
        env.reset(seed=self.seed)
        if self.seed is not None:
            self.seed += 1
        for p in self.players.values():
            if hasattr(p, "reset"):
                p.reset()
        self.console.rule("New match · you and Partner against Left and Right")
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = seat_of(agent)
            if seat == 0:
                self.board()
                card = self.choose_card(env.deal.hands[0])
            else:
                card = int(self.players[seat].act(obs["observation"], obs["action_mask"]))
            n_tricks = len(env.deal.tricks)
            deal = env.deal
            env.step(card)
            self.show_play(seat, card)
            if len(deal.tricks) > n_tricks:
                self.show_trick(deal.tricks[-1])
            if "deal_result" in env.infos["player_0"]:
                self.show_deal(env.infos["player_0"]["deal_result"])
        pts = env.match.points
        verdict = "You win!" if pts[0] > pts[1] else ("Draw." if pts[0] == pts[1] else "You lose.")
        self.console.print(f"[bold]Final score: you+partner {pts[0]} — {pts[1]} opponents. "
                           f"{verdict}[/bold]")

    def run(self) -> int:
        try:
            while True:
                self.play_match()
                while True:
                    answer = self.ask("New match (n) or quit (q)? ")
                    if answer.lower() in ("n", "new"):
                        break
                    self.console.print("  Type n for a new match or q to quit.")
        except Quit as why:
            self.console.print(f"Goodbye ({why}).")
        except KeyboardInterrupt:
            self.console.print("\nGoodbye (interrupted).")
        return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--partner", default="ai", metavar="SPEC", help="player_2 (default: the shipped AI)")
    p.add_argument("--left", default="ai", metavar="SPEC", help="player_1 (default: the shipped AI)")
    p.add_argument("--right", default="ai", metavar="SPEC", help="player_3 (default: the shipped AI)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals")
    p.add_argument("--lang", choices=["en", "fr"], default="en", help="card names")
    p.add_argument("--delay", type=float, default=0.6, help="seconds between AI moves")


def run(args: argparse.Namespace) -> int:
    from ..players import load_player
    if args.delay < 0:
        raise UsageError(f"--delay must be >= 0, got {args.delay}")
    players = {1: load_player(args.left, seed=args.seed), 2: load_player(args.partner, seed=args.seed),
               3: load_player(args.right, seed=args.seed)}
    return TerminalGame(players, args.seed, args.lang, args.delay).run()


#: Entry point ``aluette.commands: play``.
COMMAND = Command("play a match in the terminal with an AI partner", add_arguments, run)
