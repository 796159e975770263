"""The commands of `ludica`, one module each: `add_parser(sub)` adds its subcommand (whose
`run(args)` it sets as the one to call) and `run(args)` does the work, returning the exit status."""
from . import bench, check, demo, evaluate, import_arena, play, report, sample, serve, show, tournament

# in the order `ludica --help` lists them
COMMANDS = (check, show, import_arena, play, tournament, sample, evaluate, report, serve, demo, bench)

__all__ = ["COMMANDS", "bench", "check", "demo", "evaluate", "import_arena", "play", "report", "sample", "serve", "show",
           "tournament"]
