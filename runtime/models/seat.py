"""A language model in a seat of a game (runtime/referee.Seat), on the referee's side.

    seat = ModelSeat("gpt", game, load_config("gpt.model"), stage_text)
    seat.analyze(60.0)                      # a conversation with tools; its last text: the notes
    record = play_game(game, (seat, other), seed=1, game_time=120.0)
    seat.game_usage, seat.analysis_usage    # tokens, calls, attempts, latency, cost
    record.output[i]["text"]                # the game's transcript (seat.end_game returns it)

The model is remote and the harness is ours, so nothing here runs untrusted code and nothing is
sandboxed: what the model writes is data (read by a regular expression, its tool arguments by
json.loads and checked), and it is capped before it goes into a transcript.

A move: the position is sent (the rules and the notes in the system message), the answer is read
leniently (parsing.found_move); an answer that is not a legal move gets feedback (parsing.hint)
and another try, 4 answers in all, as the LLM arenas allow; after the fourth the move fails as
"illegal" (a loss by forfeit). A transport failure that outlasts the endpoint's retries fails the
move as a "crash" (the game is lost; the run goes on); a game past its token budget fails as
"tokens", which the referee counts as a loss on time (its budget spent).
"""
from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from ...compiler import CompiledDarkGame, CompiledGame, PlayedGame
from ...gdl import render
from ..api import DarkRulesApi, rules_api, warm
from ..sandbox import Answer
from . import prompts
from .config import RULE_TIERS, ModelConfig, ModelConfigError
from .endpoint import Endpoint, EndpointError, OutOfTime, Reply
from .parsing import found_move, hint, quoted

ATTEMPTS = 4  # answers asked for one move: the first and 3 more after feedback
NOTES_KEPT = 4000  # characters of the analysis's notes kept as the strategy
ANSWER_KEPT = 4000  # characters of one model answer a transcript keeps
TRANSCRIPT_KEPT = 1 << 20  # characters of one transcript kept; the rest counted and dropped
TOOL_RESULT_KEPT = 4000  # characters of one tool result sent back (and logged)
MAX_POSITIONS = 10_000  # positions one analysis may make with `apply`
MAX_PLAYOUTS = 1000  # games one `playouts` call may ask for
NOTES_RESERVE = 0.25  # the share of the analysis budget kept for writing the notes


@dataclass
class Usage:
    """What a model used, for a move, a game or an analysis: tokens in (prompts) and out (answers),
    calls (chat requests answered), attempts (answers asked for a move: 1 to 4; in an analysis,
    the model's turns), retries (requests sent again after a transport failure), latency (wall
    seconds of the answered requests: the model's clock), waited (back-off seconds, not charged),
    tool_calls (an analysis's), requests (every chat request sent: answered, sent again, refused or
    timed out; what the endpoint saw), cost (from the config's prices; None without prices)."""

    tokens_in: int = 0
    tokens_out: int = 0
    calls: int = 0
    attempts: int = 0
    retries: int = 0
    latency: float = 0.0
    waited: float = 0.0
    tool_calls: int = 0
    requests: int = 0

    @property
    def tokens(self) -> int:
        return self.tokens_in + self.tokens_out

    def count(self, reply: Reply) -> None:
        self.tokens_in += reply.tokens_in
        self.tokens_out += reply.tokens_out
        self.calls += 1
        self.retries += reply.attempts - 1
        self.latency += reply.latency
        self.waited += reply.waited

    def add(self, other: Usage) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self, config: ModelConfig) -> dict[str, Any]:
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["latency"], out["waited"] = round(self.latency, 4), round(self.waited, 4)
        prices = config.prices
        out["cost"] = round(prices.cost(self.tokens_in, self.tokens_out), 8) if prices is not None else None
        return out


class Transcript:
    """A readable log of a conversation: every prompt and answer (tool calls and results too),
    each model answer capped at ANSWER_KEPT characters, the whole at TRANSCRIPT_KEPT (the rest
    counted in `total`, as a worker's output is)."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.kept = 0  # characters kept
        self.total = 0  # bytes written, kept or not
        self.cut = False

    def add(self, heading: str, text: str = "", cap: int | None = None) -> None:
        if cap is not None and len(text) > cap:
            text = text[:cap] + f"\n[... {len(text) - cap} more characters not kept]"
        text = "".join(ch if ch.isprintable() or ch in "\n\t" else "\ufffd" for ch in text)  # no terminal escapes
        block = f"--- {heading}\n{text}\n" if text else f"--- {heading}\n"
        size = len(block.encode())
        self.total += size
        if not self.cut and self.kept + len(block) <= TRANSCRIPT_KEPT:
            self.parts.append(block)
            self.kept += len(block)
        else:
            self.cut = True  # a transcript keeps its beginning, whole

    @property
    def text(self) -> str:
        return "".join(self.parts) + (f"[transcript cut at {TRANSCRIPT_KEPT} characters]\n" if self.cut else "")


def _plain_value(value: object) -> object:
    """A numpy number as JSON has it (a tool's result is sent as JSON)."""
    return value.item() if isinstance(value, np.generic) else str(value)


def _reply_text(reply: Reply) -> str:
    lines = [reply.text] if reply.text else []
    lines += [f"[tool call] {c.name}({quoted(c.arguments, 300)})" for c in reply.tool_calls]
    return "\n".join(lines) or "(an empty answer)"


def _reply_heading(who: str, reply: Reply) -> str:
    retried = f", {reply.attempts - 1} transport retr{'y' if reply.attempts == 2 else 'ies'}" \
        if reply.attempts > 1 else ""
    return f"{who} ({reply.tokens_in} tokens in, {reply.tokens_out} out, {reply.latency:.2f} s{retried})"


class ModelSeat:
    """A language model playing one stage (runtime/referee.Seat, plus `analyze` as LocalSeat has).

    Its clock is wall time: the seconds of the model's answered requests (a remote model's CPU
    time cannot be measured), plus, in the analysis, the seconds its tools run here; waits between
    retries are not charged, nor requests that failed in transport. `rules` is what the model is
    told of the rules, "text" (plain English), "gdl" (the stage's .gdl text) or "none" (it learns
    them only through the tools of the analysis): the evaluator's --rules, never the config's;
    `endpoint`, given, is used instead of a new Endpoint(config). `stage_text` is the stage's text
    as the run has it (the prompts are made from the compiled stage; it is kept for the caller, as
    LocalSeat keeps what it reveals)."""

    def __init__(self, name: str, game: PlayedGame, config: ModelConfig, stage_text: str,
                 rules: str = "text", endpoint: Endpoint | None = None):
        if rules not in RULE_TIERS:
            raise ModelConfigError(f"rules {rules!r}: it must be one of " + ", ".join(RULE_TIERS))
        # on a stage with hidden information the model is given its information state, whose position
        # is its view: drawn, and its analysis's tools played, with the true game's kernels
        self.stage = game.stage  # with its information lines: the rules told
        truth = game.truth if isinstance(game, CompiledDarkGame) else game
        assert isinstance(truth, CompiledGame)
        self.game: CompiledGame = truth
        self.name, self.config, self.stage_text, self.rules = name, config, stage_text, rules
        self.endpoint = endpoint if endpoint is not None else Endpoint(config)
        self.api = rules_api(game)
        self._notes = ""
        self.analysis_usage: dict[str, Any] = Usage().as_dict(config)
        self.analysis_transcript = ""
        self.game_usage: dict[str, Any] = {}  # the last game's totals, set by end_game
        self._usage = Usage()
        self._moves = 0
        self._transcript = Transcript()
        self._system = prompts.game_prompt(self.game, rules, "", self.stage)  # every move's system message: rules, notes

    @property
    def notes(self) -> str:
        """The strategy: the analysis's last text answer, in the system message of every move. May
        be set: another seat of the same model (one per game played at the same time) is given the
        notes of the one that analysed, without analysing again."""
        return self._notes

    @notes.setter
    def notes(self, text: str) -> None:
        self._notes = text.strip()[:NOTES_KEPT]
        self._system = prompts.game_prompt(self.game, self.rules, self._notes, self.stage)
        self._positions: dict[str, np.ndarray] = {}

    def close(self) -> None:
        """Let go of the endpoint's HTTP connections (the seat plays no more)."""
        self.endpoint.close()

    def _chat(self, usage: Usage, messages: list[dict[str, Any]], **asked: Any) -> Reply:
        """The endpoint's answer, with every request it sent for it counted in `usage`, failed ones too."""
        before = self.endpoint.sent
        try:
            return self.endpoint.chat(messages, **asked)
        finally:
            usage.requests += self.endpoint.sent - before

    # --- analysis ----------------------------------------------------------------------------

    def analyze(self, budget: float) -> Answer:
        try:
            return self._analyze(budget)
        except Exception:  # a bug of ours, or an answer no one foresaw: this seat fails, the run goes on
            return Answer(None, 0.0, 0.0, "crash", traceback.format_exc())

    def _analyze(self, budget: float) -> Answer:
        """The analysis: a conversation in which the model may call the agents' API as tools
        (TOOLS: legal_moves, apply, playouts, evaluate) on positions named by ids (p0 the start),
        within `analysis_calls` tool calls, `analysis_tokens` tokens and `budget` seconds; its last
        text answer becomes its notes. When the calls or tokens run out, or 3/4 of the time, the
        model is asked for its notes without tools."""
        config, log, usage = self.config, Transcript(), Usage()
        warm(self.api, self.game.initial_state())  # the kernels compiled before the clock starts, as a worker's are
        w0, charged = time.monotonic(), 0.0
        system, user = prompts.analysis_prompts(self.game, self.rules, config.analysis_calls, self.stage)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        log.add("system", system)
        log.add("user", user)
        self._positions = {"p0": self.game.initial_state()}
        finishing = config.analysis_calls == 0

        def done(reply: dict | None, failure: str | None = None, detail: str = "") -> Answer:
            """The analysis's answer, with what it used: a failed one (out of time) cost tokens too."""
            self.analysis_usage = usage.as_dict(config)
            self.analysis_transcript = log.text
            reply = dict(reply or {}, usage=self.analysis_usage)
            return Answer(reply, charged, time.monotonic() - w0, failure, detail)

        while True:
            # room for one more round of tools and then the notes, the next prompt's tokens guessed from its length
            prompt = len(json.dumps(messages)) // 4
            if not finishing and (usage.tokens + 2 * (prompt + config.max_tokens) > config.analysis_tokens
                                  or charged > (1 - NOTES_RESERVE) * budget):
                finishing = True
                messages.append({"role": "user", "content": prompts.FINISH})
                log.add("user", prompts.FINISH)
            try:
                reply = self._chat(usage, messages, tools=None if finishing else prompts.TOOLS,
                                   limit=budget - charged)
            except OutOfTime as e:
                charged += e.seconds
                log.add(f"no answer within the {budget:g} s of the analysis")
                return done(None, "timeout", f"{charged:.2f} s over {budget:g} s")
            except EndpointError as e:
                log.add(f"the endpoint failed: {e}")
                return done(None, "crash", str(e))
            charged += reply.latency
            usage.count(reply)
            usage.attempts += 1
            log.add(_reply_heading("model", reply), _reply_text(reply), ANSWER_KEPT)
            if charged > budget:
                return done(None, "timeout", f"{charged:.2f} s over {budget:g} s")
            if finishing or not reply.tool_calls:
                self.notes = reply.text
                return done({"op": "analysed", "ok": True})
            messages.append(reply.message())
            t0 = time.monotonic()
            for call in reply.tool_calls:
                if usage.tool_calls >= config.analysis_calls:
                    result: dict[str, Any] = {"error": "no tool calls left: write your notes"}
                else:
                    usage.tool_calls += 1
                    result = self._tool(call.name, call.arguments)
                text = json.dumps(result, default=_plain_value)
                if len(text) > TOOL_RESULT_KEPT:
                    text = json.dumps({"error": f"the result is too long to send ({len(text)} characters)"})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
                log.add(f"tool {call.name} ->", text)
            charged += time.monotonic() - t0  # the tools work for the model: their time is its time
            finishing = usage.tool_calls >= config.analysis_calls
            if finishing:
                messages.append({"role": "user", "content": prompts.FINISH})
                log.add("user", prompts.FINISH)

    def _tool(self, name: str, arguments: str) -> dict[str, Any]:
        """One tool call's result (an `error` entry for anything wrong in the call)."""
        try:
            args = json.loads(arguments or "{}")
        except (json.JSONDecodeError, RecursionError):
            return {"error": f"the arguments are not JSON: {quoted(arguments)}"}
        if not isinstance(args, dict):
            return {"error": "the arguments must be a JSON object"}
        position = args.get("position", "p0")
        state = self._positions.get(position) if isinstance(position, str) else None
        if state is None:
            return {"error": f"no position {quoted(str(position))}: use p0 or an id an `apply` gave"}
        game, api, names = self.game, self.api, self.game.players
        try:
            if name == "legal_moves":
                over = api.is_terminal(state)
                return {"position": position, "to_move": None if over else names[api.to_move(state)],
                        "moves": [] if over else [str(m) for m in api.legal_moves(state)]}
            if name == "apply":
                move = args.get("move")
                if not isinstance(move, str):
                    return {"error": "give `move`, such as d3, b2-b3 or pass"}
                if api.is_terminal(state):
                    return {"error": f"{position}: the game is over there"}
                if len(self._positions) >= MAX_POSITIONS:
                    return {"error": f"no more positions: {MAX_POSITIONS} made"}
                try:
                    parsed = api.parse_move(move.strip().lower())
                    child, captured = api.apply(state, parsed)
                except ValueError:
                    return {"error": f"{quoted(move)} is not a legal move in {position}"}
                new = f"p{len(self._positions)}"
                self._positions[new] = child
                over = api.is_terminal(child)
                result: dict[str, Any] = {"position": new, "board": render(game, child), "captured": captured,
                                          "over": over, "to_move": None if over else names[api.to_move(child)]}
                if over:
                    returns = api.returns(child)
                    winner = [names[p] for p in (0, 1) if returns[p] > returns[1 - p]]
                    result["winner"] = winner[0] if winner else "draw"
                return result
            if name == "playouts":
                n = args.get("n", 100)
                if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_PLAYOUTS:
                    return {"error": f"n must be an integer from 1 to {MAX_PLAYOUTS}"}
                if api.is_terminal(state):
                    return {"error": f"{position}: the game is over there"}
                me = api.to_move(state)
                played = api.playouts(state, n, seed=len(self._positions) * 7919 + n)
                mine = np.asarray(played.returns)[:, me]
                return {"position": position, "games": n, "for": names[me], "wins": int((mine > 0).sum()),
                        "draws": int((mine == 0).sum()), "losses": int((mine < 0).sum()),
                        "mean_length": round(float(np.mean(played.lengths)), 1)}
            if name == "evaluate":
                player = args.get("player")
                if player is None:
                    seat = api.to_move(state)
                elif player in names:
                    seat = names.index(player)
                else:
                    return {"error": f"no player {quoted(str(player))}: the players are {', '.join(names)}"}
                return {"position": position, "player": names[seat], **api.evaluate(state, seat)}
        except Exception as e:  # our kernels' error on what the model asked: told to it, the analysis goes on
            return {"error": f"{name} failed: {type(e).__name__}: {quoted(str(e), 200)}"}
        return {"error": f"no tool {quoted(name)}: the tools are legal_moves, apply, playouts, evaluate"}

    # --- games -------------------------------------------------------------------------------

    def start_game(self, seed: int, budget: float, seat: int = 0) -> Answer:
        self._usage, self._moves, self._transcript = Usage(), 0, Transcript()
        self._transcript.add(f"game (seed {seed}) as {self.game.players[seat]} ({prompts.MARKS[seat]}), "
                             f"{budget:g} s on the clock; the system message of every move:", self._system)
        return Answer({"op": "game-ready"}, 0.0, 0.0)

    def think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        try:
            return self._think(state, legal, remaining)
        except Exception:  # a bug of ours, or an answer no one foresaw: this game is lost, the run goes on
            detail = traceback.format_exc()
            self._transcript.add("the seat failed", detail)
            return Answer(None, 0.0, 0.0, "crash", detail)

    def _think(self, state: list[int], legal: list[str], remaining: float) -> Answer:
        config, log = self.config, self._transcript
        w0, charged, usage = time.monotonic(), 0.0, Usage()
        array = np.array(state, dtype=np.int32)
        array.flags.writeable = False
        self._moves += 1
        number = self._moves  # this seat's moves in the game, this one counted
        refused = sorted(map(str, self.api.refused_now(array))) if isinstance(self.api, DarkRulesApi) else None
        prompt = prompts.move_prompt(self.game, array, legal, config.list_legal, number, refused)
        messages: list[dict[str, Any]] = [{"role": "system", "content": self._system},
                                          {"role": "user", "content": prompt}]
        log.add(f"move {number}: user ({remaining:.2f} s left)", prompt)

        def failed(failure: str, detail: str) -> Answer:
            self._usage.add(usage)
            log.add(f"move {number} failed ({failure}): {detail}")
            # the reply holds only the usage, which the referee adds to the game's (runtime/referee.py)
            return Answer({"usage": usage.as_dict(config)}, charged, time.monotonic() - w0, failure, detail)

        for attempt in range(1, ATTEMPTS + 1):
            if config.game_tokens and self._usage.tokens + usage.tokens >= config.game_tokens:
                return failed("tokens", f"the game's token budget ({config.game_tokens}) is spent")
            usage.attempts += 1
            try:
                reply = self._chat(usage, messages, limit=remaining - charged)
            except OutOfTime as e:
                charged += e.seconds
                return failed("timeout", f"no answer within the {remaining:.2f} s left")
            except EndpointError as e:
                return failed("crash", str(e))
            charged += reply.latency
            usage.count(reply)
            log.add(_reply_heading(f"move {number}, answer {attempt}", reply), _reply_text(reply), ANSWER_KEPT)
            if charged > remaining:
                return failed("timeout", f"{charged:.2f} s taken, {remaining:.2f} s were left")
            move = found_move(reply.text)
            if move is not None and move in legal:
                self._usage.add(usage)
                log.add(f"move {number}: {move}")
                return Answer({"op": "move", "move": move, "usage": usage.as_dict(config)},
                              charged, time.monotonic() - w0)
            feedback = hint(self.game, array, legal, move, config.list_legal, reply.text)
            if attempt == ATTEMPTS:
                return failed("illegal", f"{ATTEMPTS} answers without a legal move; the last: {feedback}")
            log.add(f"move {number}: user (feedback)", feedback)
            messages += [reply.message(tools=False), {"role": "user", "content": feedback}]
        raise AssertionError("unreachable: the last attempt returns")

    def end_game(self, score: int | None = None) -> tuple[str, int]:
        self.game_usage = dict(self._usage.as_dict(self.config), moves=self._moves, score=score)
        log = self._transcript
        said = {1: "a win", 0: "a draw", -1: "a loss"}.get(score, "the game broke off") if score is not None \
            else "the game broke off"
        log.add(f"game over ({said}); the game's usage:", json.dumps(self.game_usage))
        return log.text, log.total
