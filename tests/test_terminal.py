"""``aluette play`` from a script: a whole five-deal match through piped stdin."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def play(stdin: str, *args):
    return subprocess.run([sys.executable, "-m", "aluette_env", "play", "--delay", "0",
                           "--partner", "heuristic", "--left", "heuristic", "--right", "random",
                           "--seed", "3", *args], input=stdin, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_scripted_full_match_reaches_the_final_score():
    # Each turn: bad inputs first (empty, out of range, unknown name), then
    # choose 2, change to 1, confirm with y.
    turn = "\n".join(["", "12", "zz", "2", "1", "y"]) + "\n"
    proc = play(turn * 45 + "q\n")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr
    assert len(re.findall(r"Deal \d over", out)) == 5
    final = re.findall(r"Final score: you\+partner (\d+) — (\d+) opponents\. (You win!|Draw\.|You lose\.)", out)
    assert len(final) == 1
    deal_points = re.findall(r"points you\+partner (\d+), opponents (\d+)", out)
    assert sum(int(a) for a, _ in deal_points) == int(final[0][0])
    assert sum(int(b) for _, b in deal_points) == int(final[0][1])
    assert "empty line" in out and "12 is not in 1-9" in out and "'zz' is not a card" in out
    assert out.count("You play ") == 45
    assert "Goodbye (quit)" in out


def test_eof_mid_game_exits_cleanly_and_french_names():
    proc = play("1\ny\n", "--lang", "fr")
    assert proc.returncode == 0 and "Goodbye (input ended)" in proc.stdout
    assert " de " in proc.stdout  # French card names, e.g. "As de deniers"
    assert "Traceback" not in proc.stderr


def test_new_match_after_the_end_clears_scores():
    turn = "1\ny\n"
    proc = play(turn * 45 + "n\n" + turn * 2 + "q\n")
    assert proc.returncode == 0
    assert proc.stdout.count("New match ·") == 2
    second = " ".join(proc.stdout.split("New match ·")[2].split())
    assert "Deal 1/5" in second and "match: you+partner 0 — 0 opponents" in second


def test_bad_player_spec_for_play_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "aluette_env", "play", "--left", "nobody"],
                          capture_output=True, text=True, input="", cwd=ROOT)
    assert proc.returncode == 2 and "unknown player 'nobody'" in proc.stderr
