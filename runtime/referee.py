"""The referee: one game between two seats on a compiled stage, under the rules the README states.

The referee owns the authoritative state; a seat (runtime/sandbox.AgentProcess, or
runtime/local.LocalSeat for trusted in-process play) only ever answers "which move?". Rules:
- a seat without a strategy (its analysis failed) loses the game at once;
- cumulative charged time over the game budget: the game is lost (time forfeit);
- an illegal or malformed move: logged, a random legal move is played (drawn from the game's
  seed, so replays agree); the third in one game loses it;
- a seat that gives up finding a legal move itself (a language model after its four attempts,
  runtime/models) loses the game for illegal moves;
- a crash, an exception, a broken pipe, a protocol violation or too many processes: the game is lost;
- a forced pass is played without asking the seat;
- a game still going after MAX_PLIES plies is stopped as a draw;
- a seat that resigns (a human: `resign`, or the end of their input) loses the game.
A watcher (`on_ply`) is shown the position at the start and after every ply, passes too.
The log follows the Othello AI Arena's line format (runtime/logs.py writes the files), but for
its end: the result is said once, in its last line, the players named as the stage names them (see
`headline`), never by seat colour, which a stage's names may contradict (breakthrough's first
player is white).
"""
from __future__ import annotations

import hashlib
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..compiler.codes import PLY, ROLL, STATE_EXTRA
from ..compiler.dark import CompiledDarkGame
from ..compiler.played import PlayedGame
from ..gdl import ast as A
from ..gdl.ending import Ending
from ..gdl.printer import format as format_stage
from . import seatseeds
from .sandbox import Answer

MAX_PLIES = 2000
ILLEGAL_LIMIT = 3
SEAT_LETTERS = ("B", "W")
SEAT_NAMES = ("Black", "White")


class Seat(Protocol):
    """A player of one game: told its own seed for the game (its seat's, which the other seat
    cannot compute: runtime/seatseeds.py), its clock and its seat (0 black, 1 white) at the start;
    asked for moves; told its score at the end (1 a win, 0 a draw, -1 a loss; None: the game broke
    off), as the competition's protocol tells a bot (an agent program reads both)."""

    name: str

    def start_game(self, seed: int, budget: float, seat: int) -> Answer: ...
    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer: ...
    def end_game(self, score: int | None = None) -> tuple[str, int]: ...


@dataclass
class Ply:
    """One ply of a game: who, what (`pass` too), pieces captured, seconds charged, the board
    after it, and what the referee noted (an illegal move replaced...)."""

    player: int
    move: str
    captured: int
    seconds: float
    board: list[list[int]]
    note: str = ""
    usage: dict | None = None  # a language model's: tokens, calls, latency, cost of the move (runtime/models)


@dataclass
class GameRecord:
    """Everything about one game; `winner` is 0 (black), 1 (white) or None (a draw, or nobody:
    both seats forfeited)."""

    stage: str
    stage_hash: str
    players: tuple[str, str]
    seed: int  # the game's: it names the game, and the referee's own draws come from it
    initial_board: list[list[int]]
    plies: list[Ply] = field(default_factory=list)
    winner: int | None = None
    scores: tuple[int, int] = (0, 0)
    reason: str = "normal"  # normal, time, crash, illegal, no-strategy, ply-cap, resign
    detail: str = ""
    time_used: list[float] = field(default_factory=lambda: [0.0, 0.0])
    illegal: list[int] = field(default_factory=lambda: [0, 0])
    penalties: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    output: list[dict] = field(default_factory=list)  # per seat: kept text and total bytes printed
    forfeited: tuple[bool, bool] = (False, False)
    # per seat, a language model's usage over the game (its failed moves too): tokens, calls... summed
    usage: list[dict | None] = field(default_factory=lambda: [None, None])
    seat_seeds: tuple[int, int] | None = None  # (black's, white's): what each seat was told
    ending: Ending | None = None  # why the rules ended the game (None: they did not: a forfeit, the ply cap)

    @property
    def result(self) -> str:
        return "none" if self.winner is None and all(self.forfeited) else result_of(self.winner)


def result_of(winner: int | None) -> str:
    """A game's result as the store keeps it, from its winner: "black", "white" or "draw"."""
    return "draw" if winner is None else SEAT_NAMES[winner].lower()


# How a game the rules did not end ended, said of the player who lost it (the reasons above)
_STOPPED = {"time": "ran out of time", "resign": "resigned", "crash": "failed", "illegal": "made illegal moves",
            "no-strategy": "had no strategy"}


def headline(sides: tuple[str, ...], players: tuple[str, str], result: str, reason: str, plies: int,
             ending: Ending | str | None) -> str:
    """The end of a game in a line, its result said once: the one wording of the referee's last log
    line, `ludica play`, the Play page and the replay. The players are named as the stage names them
    (`sides`), each with its agent (`players`): why the rules ended it (`ending`, gdl/ending.py's
    words), else who stopped it and how. `result` and `reason` are as the store keeps them."""
    if ending is not None:
        return str(ending)
    if reason == "ply-cap":
        return f"stopped after {plies} plies: a draw"
    if result == "none":
        return "both players forfeit: nobody wins"
    if result == "draw":  # the rules ended it, their reason unsaid (an engine's bug: play_game)
        return "a draw"
    winner = SEAT_NAMES.index(result.capitalize())
    if reason == "normal":
        return f"{_who(sides, players, winner)} wins"
    return f"{_who(sides, players, 1 - winner)} {_STOPPED.get(reason, 'forfeited')}: {_who(sides, players, winner)} wins"


def explain_end(game: PlayedGame, state: np.ndarray, winner: int | None) -> tuple[Ending | None, str]:
    """(why the rules ended a game the compiled kernels ended with `winner`, gdl/ending.py's words
    from the reference interpreter, ""); or (None, what disagreed) where the reference does not
    explain it so: the two engines of the rules disagree, a bug of ludica's, not the players'."""
    try:
        ending = game.ending(state)
    except Exception as err:  # whatever the explanation's failure: the one game, never the run, pays for it
        return None, f"the reference interpreter cannot explain it ({type(err).__name__}: {str(err)[:200]})"
    if ending.winner != winner:
        return None, f"the reference interpreter gives another result ({ending})"
    return ending, ""


def _explained(game: PlayedGame, state: np.ndarray, record: GameRecord) -> Ending | None:
    """The rules' reason for the end of a game (None where the two engines disagree: the game
    stands as the kernels played it, without a reason, and the log says what to report)."""
    ending, wrong = explain_end(game, state, record.winner)
    if ending is None:
        record.log.append(f"Internal error: the compiled rules ended the game after ply {len(record.plies)} "
                          f"({headline(game.stage.player_names, record.players, record.result, 'normal', 0, None)}), "
                          f"but {wrong}. A bug in ludica: please report it with the stage and this log")
    return ending


def _start_said(game: PlayedGame, state: Any) -> str:
    """Where a random start put each player's pieces and the blocked cells: `x a1 c2; o b3`."""
    board = game.board(state)
    said = [f"{name} " + " ".join(A.cell_name(int(r), int(c)) for r, c in zip(*np.nonzero(board == p + 1)))
            for p, name in enumerate(game.stage.player_names)]
    return "; ".join(said)


def _log_roll(game: PlayedGame, state: Any, record: GameRecord) -> None:
    """On a stage with dice, the roll the side to move threw (while the game goes on)."""
    if game.stage.roll is not None and not game.is_terminal(state):
        p = game.to_move(state)
        record.log.append(f"{record.players[p]} rolls {int(game.position(state)[game.info.cells + ROLL])}")


def _who(sides: tuple[str, ...], players: tuple[str, str], p: int) -> str:
    """Player p as the end of a game names it: the stage's name, then the agent's ("x (greedy)")."""
    return f"{sides[p]} ({players[p]})"


@dataclass(frozen=True)
class Moment:
    """What a watcher of a live game is shown at its start and after each ply: the record so far
    (its last ply the one just played), the plies played, the position (`state`, flat as the
    kernels hold it, read-only, for gdl.render) and its board, each seat's time left (black, white)
    and who moves next with their legal moves (`to_move` None and no moves: the game is over, or a
    seat forfeited). On a stage with hidden information `state` and `board` are the truth, for a
    spectator, and `seen` each player's view (black's, white's), for a player: show a person only theirs."""

    record: GameRecord
    ply: int
    state: np.ndarray
    board: list[list[int]]
    remaining: tuple[float, float]
    to_move: int | None
    legal: tuple[str, ...]
    seen: tuple[list[list[int]], list[list[int]]] | None = None
    known: tuple[int, int] | None = None  # (hidden information) the tries each player knows were made

    @property
    def last(self) -> Ply | None:
        """The ply just played (None at the start)."""
        return self.record.plies[self.ply - 1] if self.ply else None

    @property
    def roll(self) -> int | None:
        """The roll the side to move threw, on a stage with dice (None without, or once the game is over)."""
        thrown = int(self.state[self.state.shape[0] - STATE_EXTRA + ROLL])
        return thrown if thrown > 0 and self.to_move is not None else None

    def view_cells(self, viewer: int) -> list[int]:
        """A hidden game's board as `viewer` sees it now, row-major (a person's view, for a page)."""
        assert self.seen is not None
        return [v for row in self.seen[viewer] for v in row]

    def tells_nothing_to(self, viewer: int, known_before: int | None) -> bool:
        """Whether a hidden game's moment is an opponent's try that told `viewer` nothing: it leaves
        the opponent to move and `viewer` knows of no more tries than before (`known_before`). Shown
        to a person, even as "a try", it would count the opponent's refusals."""
        ply = self.last
        return (self.known is not None and ply is not None and ply.player != viewer
                and self.to_move == ply.player and self.known[viewer] == known_before)


Watcher = Callable[[Moment], None]


def stage_hash(stage: A.Stage) -> str:
    """sha256 of the stage's canonical text: two files that mean the same stage hash the same.
    A run asks it of the same Stage object for every game; it is kept by identity (hashing the
    AST to look it up would cost as much as printing it)."""
    held = _hashes.get(id(stage))
    if held is not None and held[0] is stage:
        return held[1]
    digest = hashlib.sha256(format_stage(stage).encode()).hexdigest()
    with _hashes_lock:
        _hashes[id(stage)] = (stage, digest)  # the stage kept alive, so its id is not reused meanwhile
        while len(_hashes) > HASHES_KEPT:
            _hashes.pop(next(iter(_hashes)))  # the oldest first
    return digest


HASHES_KEPT = 1024
_hashes: dict[int, tuple[A.Stage, str]] = {}
_hashes_lock = threading.Lock()


def _continues_note(stage: A.Stage) -> str:
    if isinstance(stage.turn, A.FewerPieces):
        return "fewer pieces rule"
    if isinstance(stage.turn, A.AgainAfterCapture):
        return "capture rule"
    return "turn rule"


def play_game(game: PlayedGame, seats: tuple[Seat | None, Seat | None], seed: int,
              game_time: float | tuple[float, float] = 10.0, names: tuple[str, str] | None = None,
              no_strategy: tuple[str, str] = ("", ""), on_ply: Watcher | None = None,
              seat_seeds: tuple[int, int] | None = None) -> GameRecord:
    """Play one game; `seats[i]` None means that player has no strategy (`no_strategy[i]` says why,
    and `names` names the players). `seed` is the game's; each seat is told its own, `seat_seeds`
    (black's, white's), which a run derives from its kept secret (runtime/seatseeds.py); without
    them the seats' seeds come from a fresh secret, so a game outside a run gives neither seat a
    seed the other can compute either. `game_time` is each seat's budget for the game, one for both
    or (black's, white's): a human's clock is not an agent's. `on_ply` watches the game live: it is
    called once before the first move and after every ply; an exception in it ends the game (and
    goes on to the caller)."""
    budgets = (float(game_time), float(game_time)) if isinstance(game_time, (int, float)) else \
        (float(game_time[0]), float(game_time[1]))
    black, white = seats
    if not names:
        if black is None or white is None:
            raise ValueError("play_game: a seat without a strategy has no name: give `names`")
        names = (black.name, white.name)
    sides = game.stage.player_names
    ready = (black, white) if black is not None and white is not None else None  # else a forfeit below
    if seat_seeds is None:
        seat_seeds = seatseeds.seat_seeds(seatseeds.fresh(), seed)
    chance = seatseeds.chance_seed(seat_seeds, seed)  # no seat can compute it: its start and rolls
    state = game.start(chance)  # a stage with a random start draws it; with dice, the first roll
    record = GameRecord(stage=game.stage.name, stage_hash=stage_hash(game.stage), players=names, seed=seed,
                        initial_board=game.board(state).tolist(), seat_seeds=seat_seeds)
    log = record.log
    log.append(f"Game started: {names[0]}(B) vs {names[1]}(W) on Stage: {game.stage.name}")
    if game.stage.random_start:
        log.append("The start was drawn at random from the game's chance seed: " + _start_said(game, state))
    _log_roll(game, state, record)
    rng = random.Random(seed)  # the referee's own draws (a move in place of an illegal one): no seat's generator
    started, decided = [False, False], False
    try:
        for p in (0, 1):
            if seats[p] is None:
                _forfeit(record, p, "no-strategy", f"{_who(sides, names, p)} has no strategy: {no_strategy[p]}")
        if ready is not None:
            for p in (0, 1):
                answer = ready[p].start_game(seat_seeds[p], budgets[p], p)
                started[p] = True
                record.time_used[p] += answer.seconds  # what the agent does as a game starts is its time
                if answer.failure == "timeout":
                    _forfeit(record, p, "time", f"{_who(sides, names, p)} exceeded the time limit of "
                                                f"{budgets[p]:g}s! (starting the game: {answer.detail})")
                    break
                if answer.failure:
                    _forfeit(record, p, "crash", f"{_who(sides, names, p)} could not start the game: "
                                                 f"{_first_line(answer.detail)}")
                    break
        watch = _Watch(game, record, budgets, on_ply) if on_ply is not None else None
        if watch is not None:
            watch(state)
        if record.reason == "normal":
            state = _loop(game, seats, record, state, rng, budgets, watch, chance)
        board = game.board(state)
        record.scores = (int((board == 1).sum()), int((board == 2).sum()))
        if record.reason == "normal":  # the rules ended it: why, in their words (gdl/ending.py)
            record.winner = game.winner(state)
            record.ending = _explained(game, state, record)
        log.append("Game over: " + headline(game.stage.player_names, names, record.result, record.reason,
                                            len(record.plies), record.ending))
        decided = True
    finally:
        for p in (0, 1):
            seat = seats[p]
            if started[p] and seat is not None:
                text, total = seat.end_game(_score(record, p) if decided else None)
                record.output.append({"seat": p, "text": text, "bytes": total})
    return record


class _Watch:
    """Calls a watcher with the game's Moment after each ply (the legal moves are worked out only
    for a watcher: a game nobody watches pays nothing for it)."""

    def __init__(self, game: PlayedGame, record: GameRecord, budgets: tuple[float, float], on_ply: Watcher):
        self.game, self.record, self.budgets, self.on_ply = game, record, budgets, on_ply

    def __call__(self, state: Any) -> None:
        game, record = self.game, self.record
        going = record.reason == "normal" and not game.is_terminal(state)
        to_move = game.to_move(state) if going else None
        shown = game.position(state).copy()
        shown.flags.writeable = False
        self.on_ply(Moment(record, len(record.plies), shown, game.board(state).tolist(),
                           (max(0.0, self.budgets[0] - record.time_used[0]),
                            max(0.0, self.budgets[1] - record.time_used[1])),
                           to_move, tuple(str(m) for m in game.legal_moves(state)) if going else (),
                           *self._views(state)))

    def _views(self, state: Any) -> tuple:
        """(each player's view, the tries each knows were made) of a hidden-information game, else Nones."""
        game = self.game
        if not isinstance(game, CompiledDarkGame):
            return None, None
        known = tuple(int(game.information(state, p)[game.n_cells + PLY]) for p in (0, 1))
        return (game.view_board(state, 0).tolist(), game.view_board(state, 1).tolist()), known


def _loop(game: PlayedGame, seats, record: GameRecord, state: Any, rng: random.Random,
          budgets: tuple[float, float], watch: _Watch | None, chance: int) -> Any:
    """Play until the game ends or a seat forfeits; returns the last state. On a stage with hidden
    information a seat is given only what it knows (game.information) and its tries; a try the truth
    does not allow is refused by the rule, noted on its ply."""
    log, names, sides = record.log, record.players, game.stage.player_names
    dark = isinstance(game, CompiledDarkGame)  # a stage with hidden information: its moves are tries
    # the seats told their observations on the opponent's turns (agent programs), and what each was last told
    observers = [p for p in (0, 1) if getattr(seats[p], "observes", False)]
    told: list[bytes] = [b"", b""]
    while not game.is_terminal(state):
        if observers and isinstance(game, CompiledDarkGame) and \
                not _tell_observers(game, seats, record, state, observers, told, budgets):
            return state
        if len(record.plies) >= MAX_PLIES:
            record.reason, record.detail = "ply-cap", f"stopped after {MAX_PLIES} plies"
            return state
        p = game.to_move(state)
        legal = game.legal_moves(state)
        if len(legal) == 1 and legal[0].is_pass:
            state = game.thrown(game.apply(state, legal[0]), chance)
            record.plies.append(Ply(p, "pass", 0, 0.0, game.board(state).tolist()))
            log.append(f"{names[p]} passes")
            _log_roll(game, state, record)
            if watch is not None:
                watch(state)
            continue
        texts = [str(m) for m in legal]
        remaining = budgets[p] - record.time_used[p]
        information = game.information(state, p)
        told[p] = information.tobytes()
        answer = seats[p].think(information.tolist(), texts, remaining)
        record.time_used[p] += answer.seconds
        _add_usage(record, p, answer)
        if answer.reply is not None:
            _log_out_of_turn(record, p, answer.reply)
        if answer.failure == "timeout" or record.time_used[p] > budgets[p]:  # (a failure's reply: only its usage)
            _forfeit(record, p, "time", f"{_who(sides, names, p)} exceeded the time limit of {budgets[p]:g}s!"
                     + (f" ({answer.detail})" if answer.detail else ""))
            return state
        if answer.failure == "tokens":  # a language model's other budget: spent, it is out of time as surely
            _forfeit(record, p, "time", f"{_who(sides, names, p)} spent its token budget: {_first_line(answer.detail)}")
            return state
        if answer.failure == "resign":
            _forfeit(record, p, "resign", f"{_who(sides, names, p)} resigns", penalty=False)
            return state
        if answer.failure == "illegal":  # a seat that ran out of attempts itself (a language model's four)
            record.illegal[p] += 1
            _forfeit(record, p, "illegal", f"{_who(sides, names, p)} gave no legal move: "
                                           f"{_first_line(answer.detail)}")
            return state
        if answer.failure:
            _crashed(record, p, _who(sides, names, p), answer)
            return state
        text = answer.reply.get("move")
        note = ""
        chosen = _parse(game, text)
        if chosen not in legal:
            record.illegal[p] += 1
            shown = repr(text)[:60]
            if record.illegal[p] >= ILLEGAL_LIMIT:
                _forfeit(record, p, "illegal", f"{_who(sides, names, p)} made {ILLEGAL_LIMIT} illegal moves "
                                               f"(the last: {shown})")
                return state
            move = rng.choice(legal)
            note = f"illegal move {shown} replaced by a random legal move"
            record.penalties.append(f"{names[p]}: {note} ({record.illegal[p]} of {ILLEGAL_LIMIT - 1} allowed)")
            log.append(f"{names[p]} played an illegal move {shown}; a random legal move is played instead")
        else:
            move = chosen
        state, captured = game.apply_counted(state, move)
        state = game.thrown(state, chance)  # the next turn's dice, from the game's chance seed
        usage = answer.reply.get("usage")
        record.plies.append(Ply(p, str(move), captured, round(answer.seconds, 4), game.board(state).tolist(), note,
                                usage if isinstance(usage, dict) else None))
        if isinstance(game, CompiledDarkGame) and game.refused(state):
            record.plies[-1].note = (note + "; " if note else "") + "refused"
            log.append(f"{names[p]}({SEAT_LETTERS[p]}): {move} refused: "
                       + ("tries again" if game.to_move(state) == p else "loses the turn"))
        else:
            log.append(f"{names[p]}({SEAT_LETTERS[p]}): {move}")
        if not dark and not game.is_terminal(state) and game.to_move(state) == p:
            log.append(f"{names[p]} continues ({_continues_note(game.stage)})")
        _log_roll(game, state, record)
        if watch is not None:
            watch(state)
    return state


def _tell_observers(game: CompiledDarkGame, seats, record: GameRecord, state: Any, observers: list[int],
                    told: list[bytes], budgets: tuple[float, float]) -> bool:
    """Tell each observing seat that is not to move what it now observes, if that changed since it was
    last told (an opponent's try, its own turn lost): docs/protocol.md. False if one forfeited."""
    mover = game.to_move(state)
    for q in observers:
        if q == mover:
            continue  # told with its tries when asked to move
        information = game.information(state, q)
        if information.tobytes() == told[q]:
            continue
        told[q] = information.tobytes()
        answer = seats[q].observe(information.tolist(), budgets[q] - record.time_used[q])
        record.time_used[q] += answer.seconds
        who = _who(game.stage.player_names, record.players, q)
        if answer.failure == "timeout" or record.time_used[q] > budgets[q]:
            _forfeit(record, q, "time", f"{who} exceeded the time limit of {budgets[q]:g}s! (on an observation"
                     + (f": {answer.detail})" if answer.detail else ")"))
            return False
        if answer.failure:
            _crashed(record, q, who, answer, " on an observation")
            return False
        _log_out_of_turn(record, q, answer.reply or {})
    return True


def _crashed(record: GameRecord, p: int, who: str, answer: Answer, when: str = "") -> None:
    """Seat p, `who`, failed a request (`when`, said after what failed)."""
    _forfeit(record, p, "crash", f"{who} failed ({answer.failure}){when}: {_first_line(answer.detail)}")
    record.detail = answer.detail


def _log_out_of_turn(record: GameRecord, p: int, reply: dict) -> None:
    """Log the lines a program wrote that nobody asked for (a move out of turn, a stray print): they
    change nothing (docs/protocol.md)."""
    said = reply.get("out_of_turn")
    if not (isinstance(said, list) and len(said) == 2 and isinstance(said[0], int) and said[0] > 0
            and isinstance(said[1], list)):
        return
    count, first = said
    shown = ", ".join(repr(str(line)[:60]) for line in first[:3])
    record.log.append(f"{record.players[p]} wrote {count} line{'s' * (count != 1)} out of turn, ignored"
                      + (f": {shown}" if shown else ""))


def _add_usage(record: GameRecord, p: int, answer: Answer) -> None:
    """Add what a move used (a language model's: its reply's `usage`, kept on a failure too) to the seat's
    total for the game: numbers summed, anything else kept as the last said."""
    usage = answer.reply.get("usage") if isinstance(answer.reply, dict) else None
    if not isinstance(usage, dict):
        return
    held = record.usage[p]
    total: dict = held if held is not None else {}
    for key, value in usage.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(total.get(key, 0), (int, float)):
            total[key] = round(total.get(key, 0) + value, 8)
        else:
            total[key] = value
    record.usage[p] = total


def _score(record: GameRecord, p: int) -> int:
    """Seat p's score in a decided game: 1 a win, 0 a draw, -1 a loss (a forfeit by both: each lost)."""
    if record.winner is None:
        return -1 if record.forfeited[p] else 0
    return 1 if record.winner == p else -1


def _forfeit(record: GameRecord, p: int, reason: str, line: str, penalty: bool = True) -> None:
    """Seat p loses the game (both lose if both forfeit before it starts); a resignation is no penalty."""
    record.log.append(line)
    if penalty:
        record.penalties.append(line)
    lost = list(record.forfeited)
    lost[p] = True
    record.forfeited = (lost[0], lost[1])
    record.reason = reason
    record.winner = None if all(lost) else 1 - p  # the result is said as the game ends (headline)


def _parse(game: PlayedGame, text) -> object:
    """The move a reply names (its text as `Move.parse` reads it), or None."""
    if not isinstance(text, str) or len(text) > 40:
        return None
    try:
        return game.parse_move(text.strip().lower())
    except ValueError:
        return None


def _first_line(text: str) -> str:
    lines = [ln for ln in (text or "").strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no detail"
