"""Language-model agents: any OpenAI-compatible chat endpoint (OpenAI, vLLM, a llama.cpp server,
Ollama) plays in a seat, through the official `openai` client (the `models` extra).

    config = load_config("gpt.model", endpoints)   # config.py: a small TOML file, at an endpoint the evaluator allows
    check(config)                            # endpoint.py: EndpointDown before a run, not mid-game
    seat = ModelSeat("gpt", game, config, stage_text, rules="text")   # seat.py: a referee Seat; rules: --rules
    seat.analyze(budget)                     # tools on the true rules; its last text: the notes
    play_game(game, (seat, other), seed, game_time)   # runtime/referee.py, as for any seat

How the pieces fit: `config` says which model and how it plays; `endpoint` makes one chat call
(retries and back-off there, never charged to the model); `prompts` makes everything the model is
told from the stage (rules at a tier, the board, the move syntax, the answer format, the notes);
`parsing` reads the move out of an answer and says what was wrong with a bad one; `seat` runs the
conversation of a move (4 answers at most), of the analysis (with tools), keeps the clock (wall
seconds of answered requests), the usage (tokens, calls, attempts, latency, cost) and a readable
transcript. The seat runs on the referee's side, unsandboxed: the model is remote, and what it
writes is only ever read as data.
"""
from .config import RULE_TIERS, SUFFIX, ModelConfig, ModelConfigError, Prices, load_config
from .endpoint import Endpoint, EndpointDown, EndpointError, Reply, ToolCall, check
from .seat import ATTEMPTS, ModelSeat, Usage

__all__ = ["ModelConfig", "ModelConfigError", "Prices", "load_config", "RULE_TIERS", "SUFFIX", "Endpoint",
           "EndpointDown", "EndpointError", "Reply", "ToolCall", "check", "ModelSeat", "Usage", "ATTEMPTS"]
