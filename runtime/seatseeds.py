"""Each seat's own seed for a game, and the run's secret it derives from.

A seat is told a seed as each game starts, and its `random` and `numpy.random` are seeded with it
(runtime/worker.py). One seed for both seats handed each agent a copy of its opponent's generator:
an agent foresaw every move of the built-in `random` and won every game. Nor can the game's seed
serve: it derives from the run's --seed (public, 0 by default), the stage's hash, the names and the
game's index (plans.game_seed), all of which an agent knows or can guess, and a seed an agent can
guess publishes the test. So a seat's seed is an HMAC of the game's seed and the seat under the
run's game secret: SECRET_BITS random bits kept owner-only in the run folder (SECRET_FILE, which no
agent reaches: guarded.check_agents), never shown to an agent. Neither seat can compute the
other's, nor its own of a game to come; the kept secret makes `--resume` play the very games an
uninterrupted run would, and a new run in a folder given a copy of it (`keep`) plays them again.
The seeds each game was played with are stored beside it (records.py), so a replay needs only the
store.

    secret = kept_or_made(folder)              # the run's; made and kept on its first use
    black, white = seat_seeds(secret, game_seed)
    chance = chance_seed((black, white), game_seed)   # the game's random start and rolls

The game's chance (a random start, the dice) is drawn from both seats' seeds for the same reason:
the game's seed is public, and the rolls drawn from it were an agent's to foresee.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from pathlib import Path

from ..files import read_json, write_atomic
from ..gdl.diagnostics import LudicaError

SECRET_FILE = "game-secret.json"
SECRET_BITS = 128


def fresh() -> bytes:
    """A new secret: a game played outside a run folder (`play_game` with no seat seeds) gets one."""
    return secrets.token_bytes(SECRET_BITS // 8)


def seat_seeds(secret: bytes, game_seed: int) -> tuple[int, int]:
    """(Black's seed, White's seed) for the game of `game_seed`: 63-bit integers, as game seeds are."""
    return _seed(secret, game_seed, 0), _seed(secret, game_seed, 1)


def chance_seed(seats: tuple[int, int] | None, game_seed: int) -> int:
    """The seed a game's chance is drawn from (a random start, every roll): from both seats' seeds,
    so neither seat can compute it (each knows its own alone), and a replay finds it in the store
    beside the game. A game stored before seats had seeds of their own drew from its game's seed."""
    if seats is None:
        return game_seed
    digest = hashlib.sha256(f"chance|{seats[0]}|{seats[1]}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _seed(secret: bytes, game_seed: int, seat: int) -> int:
    digest = hmac.new(secret, f"seat|{game_seed}|{seat}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def kept(folder: Path) -> bytes | None:
    """The game secret kept in a run folder, or None (a new run, or one made before seats had seeds
    of their own)."""
    path = Path(folder) / SECRET_FILE
    if not path.is_file():
        return None
    fix = (f"copy {SECRET_FILE} back from a copy of the run folder, or start the run again in another --out "
           "(the games still to play cannot be the ones the run would have played without it)")
    data = read_json(path, fix=fix)
    try:
        secret = bytes.fromhex(data["secret"])
    except (TypeError, KeyError, ValueError):
        raise LudicaError(f"{path} does not hold a game secret ({{\"secret\": {SECRET_BITS // 4} hex digits}}); "
                          f"{fix}") from None
    if len(secret) * 8 != SECRET_BITS:
        raise LudicaError(f"{path}: the game secret has {len(secret) * 8} bits, not {SECRET_BITS}; {fix}")
    return secret


def keep(folder: Path, secret: bytes) -> bytes:
    """Keep `secret` in the run folder, readable by its owner alone; returns it."""
    write_atomic(Path(folder) / SECRET_FILE, json.dumps({"secret": secret.hex()}) + "\n", private=True)
    return secret


def kept_or_made(folder: Path) -> bytes:
    """The run's game secret: the one kept in `folder`, else a fresh one, kept there before any game
    is played with it. A run folder made before seats had seeds of their own holds none: its games
    stay as they were played (each seat was told the game's seed), and the games it has still to
    play take their seats' seeds from the secret made now."""
    held = kept(folder)
    return held if held is not None else keep(folder, fresh())
