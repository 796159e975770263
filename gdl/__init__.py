"""The ludica game description language: stages as text, parsed, checked, printed, measured, run.

    stage = gdl.load("stages/standard-8x8.gdl")   # parse + static checks; StageError lists all errors
    gdl.format(stage)                              # the canonical text; parse(format(s)) == s
    gdl.description_length(stage)                  # bits of the canonical prefix-free code
    game = gdl.reference(stage)                    # the slow, obviously correct interpreter
    gdl.rules_text(stage)                          # the rules in plain English, from the AST
"""
from . import ast
from .arena import from_arena, to_arena
from .ast import Stage
from .bits import NotCodable, bits_breakdown, description_length
from .english import changes, rules, rules_text
from .diagnostics import Diagnostic, IllegalMoveError, InternalError, LudicaError, StageError, StageFileError
from .game import PASS, Game, Move, perft, render
from .interpreter import reference
from .loader import analyse, check, load, loads, read_stage
from .parser import parse
from .printer import format

__all__ = [
    "ast", "Stage", "Move", "PASS", "Game",
    "parse", "format", "load", "loads", "read_stage", "check", "analyse",
    "description_length", "bits_breakdown", "NotCodable",
    "reference", "perft", "render", "from_arena", "to_arena", "rules", "rules_text", "changes",
    "Diagnostic", "StageError", "StageFileError", "LudicaError", "IllegalMoveError", "InternalError",
]
