"""Everything a language model is told, generated from the stage (never written per game, so a
sampled variant is told as much as a classic): the rules at the chosen tier, the board as text with
its coordinates, whose turn it is and which mark is theirs, how moves are written, the answer's
format, its notes from the analysis, and, only when asked for (`list_legal`), the legal moves.

    system = game_prompt(game, rules, notes)        # once per game: rules, board key, moves, notes
    user = move_prompt(game, state, legal, list_legal, number)   # every move: the position
    analysis_prompts(game, rules, calls) -> (system, user)    # the analysis conversation's opening
    TOOLS                                                     # the tools offered in it

Tiers (`rules`): "text" the rules in plain English (gdl.rules_text; the .gdl text if a stage has
a form the English does not say), "gdl" the stage's canonical .gdl text (gdl.format: comments a
person wrote in the file are not the stage, and are not shown), "none" no rules at all: the model
learns them only through the tools of its analysis.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...compiler import codes as K
from ...compiler.game import CompiledGame
from ...gdl import ast as A
from ...gdl import format as format_stage
from ...gdl import render, rules_text
from ...gdl.english import sentence
from .parsing import MARKS, example, example_cell, move_syntax

ANSWER_LINE = "move: "  # what the final line of an answer starts with
NOTES_WORDS = 300  # the length asked of the analysis's notes


def stage_rules(stage: A.Stage, tier: str) -> str:
    """The rules as the model is told them at `tier` ("" for "none")."""
    if tier == "none":
        return ""
    if tier == "text":
        try:
            return rules_text(stage).strip()
        except Exception:  # a form the English cannot say yet: the stage's own text says it all
            return "The rules, in the game description language:\n" + format_stage(stage).strip()
    return format_stage(stage).strip()


def _rules_section(stage: A.Stage, tier: str, analysing: bool) -> str:
    if tier == "none":
        if analysing:
            return ("You are not told the rules. Find them out with the tools: which moves are legal where, what a "
                    "move does to the board, how a game ends and who wins.")
        return ("You are not told the rules. What you found out about them while analysing the game with the tools "
                "is in your notes below.")
    if tier == "gdl":
        return ("The rules, written in a game description language (a board, players, setup, move rules, "
                "turn order, pass rule, end conditions checked in order):\n\n" + stage_rules(stage, tier))
    return stage_rules(stage, tier)


def _players(game: CompiledGame) -> tuple[str, str]:
    names = game.players
    return names[0], names[1]


def board_key(game: CompiledGame) -> str:
    """How to read the board drawings: coordinates, marks, hexagonal rows."""
    first, second = _players(game)
    last = A.COLUMN_LETTERS[game.cols - 1]
    lines = [f"The board has {game.rows} rows and {game.cols} columns. Columns are lettered a to {last} from left to "
             f"right and rows are numbered 1 to {game.rows} from top to bottom, so a1 is the top-left cell.",
             f"In the drawings, X is a piece of {first} (the first player, who moves first), O a piece of {second} "
             "(the second player), . an empty cell and # a blocked cell (out of play)."]
    if isinstance(game.stage.board, A.HexBoard):
        lines.append("The cells are hexagons: each row is drawn half a cell to the right of the row above, and a cell "
                     "touches up to six others (two in the row above, two in its own row, two in the row below).")
    return "\n".join(lines)


def moves_section(game: CompiledGame) -> str:
    cell = example_cell(game)
    return (f"Moves are written so: {move_syntax(game)}. Coordinates are column letter then row number ({cell} is "
            f"column {cell[0]}, row {cell[1:]}).")


def answer_format(game: CompiledGame) -> str:
    return (f"Think as briefly as you like, then end your answer with one line of the form `{ANSWER_LINE}<your move>`, "
            f"such as `{ANSWER_LINE}{example(game)}`. Only the move on that line counts.")


def sight_section(stage: A.Stage) -> str:
    """What a player of a stage with hidden information is shown ("" for perfect information)."""
    if stage.hidden is None:
        return ""
    after = "you then try again" if isinstance(stage.refused, A.Retry) else "you then lose your turn"
    return ("You do not see the whole board. The board you are shown is what you know: your own pieces, and your "
            "opponent's pieces where you have seen them (where they took or turned a piece of yours, or where a move "
            "of yours was refused). A cell drawn . may hold an opponent's piece you have not seen. A move that your "
            "board allows but the true board does not is refused: you are told so, that cell is shown to you, and "
            f"{after}. A refused move is not offered again until one of your moves is played."
            + "".join(" " + sentence(line, stage) for line in (*stage.announce, *stage.reveal)))


def game_prompt(game: CompiledGame, tier: str, notes: str, stage: A.Stage | None = None) -> str:
    """The system message of every move of a game: what does not change from move to move. `stage`:
    the stage with its information lines, where `game` plays its true game (hidden information)."""
    stage = game.stage if stage is None else stage
    parts = ["You are playing a two-player board game against an opponent. A referee holds the game, checks every "
             "move against the rules and plays it; you choose your moves.",
             "THE RULES\n" + _rules_section(stage, tier, analysing=False),
             "THE BOARD\n" + board_key(game),
             "MOVES\n" + moves_section(game)]
    if stage.hidden is not None:
        parts.insert(3, "WHAT YOU SEE\n" + sight_section(stage))
    if notes.strip():
        parts.append("YOUR NOTES (written by you when you analysed this game before play)\n" + notes.strip())
    parts.append("YOUR ANSWER\n" + answer_format(game))
    return "\n\n".join(parts)


def side_line(game: CompiledGame, player: int) -> str:
    """Who the model plays: its player's name, order and mark."""
    names = _players(game)
    order = ("first", "second")[player] + " player"
    # the referee's colours (the first player is black), unless the players' own names are colours:
    # "You play white, the first player (black)" would only confuse
    if not {name.lower() for name in names} & {"black", "white"}:
        order += (" (black)", " (white)")[player]
    return (f"You play {names[player]}, the {order}: your pieces are {MARKS[player]}, your opponent "
            f"{names[1 - player]}'s are {MARKS[1 - player]}.")


def move_prompt(game: CompiledGame, state: np.ndarray, legal: Sequence[str], list_legal: bool, number: int,
                refused: Sequence[str] | None = None) -> str:
    """The user message asking for one move (the model's `number`th of the game): the position,
    whose turn, (the legal moves). On a stage with hidden information (`refused` not None: the moves
    refused to it this turn) the position is its view, and says so."""
    player = game.to_move(state)
    lines = [side_line(game, player), "",
             f"Your move {number} of this game. The position" + (" as you know it" if refused is not None else "") + ":",
             render(game, state), "",
             f"It is your turn: {game.players[player]} ({MARKS[player]}) to move."]
    roll = int(state[game.n_cells + K.ROLL])
    if roll:  # a stage with dice: the roll thrown for this turn
        lines.append(f"Your roll this turn: {roll}.")
    if refused:
        lines.append("Refused this turn (the true board does not allow them; each cell now shows what it holds): "
                     + " ".join(refused) + ".")
    if list_legal:
        lines.append("Your legal moves: " + " ".join(legal) + ".")
    lines.append(f"Choose your move and end with the line `{ANSWER_LINE}<your move>`.")
    return "\n".join(lines)


def analysis_prompts(game: CompiledGame, tier: str, calls: int, stage: A.Stage | None = None) -> tuple[str, str]:
    """The analysis conversation's system and first user messages (`stage`: as game_prompt's)."""
    stage = game.stage if stage is None else stage
    system = "\n\n".join([
        "You will play several games of a two-player board game, sometimes as the first player, sometimes as the "
        "second. Before they start you may study the game with tools that run its true rules. Positions are named "
        "by ids: p0 is the starting position, and every `apply` gives the id of the position it makes.",
        "THE RULES\n" + _rules_section(stage, tier, analysing=True),
        "THE BOARD\n" + board_key(game),
        *(["WHAT YOU SEE IN A GAME\n" + sight_section(stage) + " The tools show the whole board: what you "
           "study with them is the true game, whose boards you will not see in play."] if stage.hidden else []),
        "MOVES\n" + moves_section(game),
        "YOUR TASK\n"
        f"Use the tools (at most {calls} calls in all) to understand the game and how to win it. Then answer with "
        "no tool call: your notes, a strategy in at most "
        f"{NOTES_WORDS} words. Your notes are all you keep: they are shown to you before every move of every game, "
        "with the position; you will not have the tools during the games."])
    first, _ = _players(game)
    user = (f"The starting position, p0 ({first}, X, moves first):\n{render(game, game.initial_state())}\n\n"
            "Study the game, then write your notes.")
    return system, user


FINISH = ("Your analysis budget is spent: no more tool calls. Write your notes now: the strategy you will follow, "
          f"in at most {NOTES_WORDS} words.")


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object", "properties": properties,
                                                            "required": required}}}


_POSITION = {"type": "string", "description": "a position's id: p0 (the start) or one an `apply` gave"}

TOOLS: list[dict[str, Any]] = [
    _function("legal_moves", "The legal moves in a position, and whose turn it is there.",
              {"position": _POSITION}, ["position"]),
    _function("apply", "Play a move in a position: the new position's id, its board, the pieces the move captured "
              "or flipped, whether the game is over (and its result) and who moves next.",
              {"position": _POSITION, "move": {"type": "string", "description": "a move, such as d3, b2-b3 or pass"}},
              ["position", "move"]),
    _function("playouts", "Play n games of random moves from a position to their end: how many the side to move "
              "there wins, draws and loses, and their mean length in plies.",
              {"position": _POSITION, "n": {"type": "integer", "description": "how many games, 1 to 1000"}},
              ["position", "n"]),
    _function("evaluate", "The Othello AI Arena's evaluation of a position for one player: piece (own minus the "
              "opponent's pieces), mobility (own minus the opponent's legal moves), corner, edge and total.",
              {"position": _POSITION, "player": {"type": "string", "description": "a player's name (default: the "
                                                 "side to move)"}},
              ["position"]),
]
