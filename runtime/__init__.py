"""The runtime: analyse-then-play episodes for agents (see the runtime issue)."""
