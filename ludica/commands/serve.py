"""`ludica serve [DIR...] [--port N] [--host H]`: the live web application (web/) over the bundled
stages and the folders given (stage folders, sampled sets, run folders), run by uvicorn. It listens
on the loopback alone unless --allow-remote is given: the pages have no login; and there it answers
only requests that call it by a loopback name (127.0.0.1, localhost, [::1], or the --host given),
so a page elsewhere cannot reach it by rebinding its own name to 127.0.0.1.

Its Play page (web/play.py) plays games in this process: a person (by clicking), the built-ins and
the agent files given with --agent FILE, sandboxed as usual (--in-process: not, for trusted agents).
Each game is a run folder of its own, `game-N`, in the play store: --play-store DIR, or by default
a new folder under the system's temporary folder (kept when serve stops: its path is printed), so a
person's games are recorded like any agent's (`ludica serve DIR/game-N` shows one as a run)."""
from __future__ import annotations

import ipaddress
from pathlib import Path

from ludica import gdl
from ludica.arguments import count_up_to, resamples_count, seconds

DEFAULT_PORT = 8000


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="a local web application: the stages, runs live as they go, replays")
    p.add_argument("folders", nargs="*", metavar="DIR",
                   help="run folders (of tournament or evaluate, running or finished) and folders of .gdl stages")
    p.add_argument("--port", type=count_up_to(65_535, "the largest TCP port"), default=DEFAULT_PORT, help=f"the port to listen on (default {DEFAULT_PORT})")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1, this machine alone)")
    p.add_argument("--allow-remote", action="store_true",
                   help="allow a --host other machines can reach (the pages have no login)")
    p.add_argument("--resamples", type=resamples_count, default=200, metavar="N",
                   help="bootstrap resamples of the runs' ratings (default 200: the report's 1000 take longer)")
    p.add_argument("--agent", action="append", default=[], metavar="FILE",
                   help="an agent file the Play page offers besides the built-ins (sandboxed as usual; repeat for more)")
    p.add_argument("--play-store", type=Path, default=None, metavar="DIR",
                   help="where the Play page's games are stored, a run folder per game (default: a new folder "
                        "under the system's temporary folder, kept after serve stops, its path printed)")
    p.add_argument("--abandon-after", type=seconds, default=None, metavar="S",
                   help="seconds a person's game waits with none of its pages open before the person resigns it "
                        "(default 60: a reload is not a resignation)")
    p.add_argument("--in-process", action="store_true",
                   help="run the Play page's agents inside this process, without the sandbox (trusted agents; tests)")
    p.set_defaults(run=run)


def is_loopback(host: str) -> bool:
    """Whether `host` is an address of this machine alone (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse, saying why and what to do, a --host beyond the loopback unless --allow-remote."""
    if not allow_remote and not is_loopback(host):
        raise gdl.LudicaError(
            f"refusing to listen on {host}: other machines could reach it, and the pages (your stages, runs and "
            "agents' names and output) have no login. Serve on the loopback (the default, 127.0.0.1) and reach it "
            "from elsewhere through an SSH tunnel (ssh -L 8000:127.0.0.1:8000 THIS_HOST), or add --allow-remote "
            "to listen there anyway")


def host_name(host: str) -> str:
    """An address as a URL and a Host header name it: an IPv6 one in brackets."""
    return f"[{host}]" if ":" in host else host


def url(host: str, port: int) -> str:
    return f"http://{host_name(host)}:{port}/"


def run(args) -> int:
    import tempfile

    import uvicorn

    from ludica.web import LOOPBACK_NAMES, PlayRoom, create_app, sort_folders
    from ludica.web.play import ABANDON_AFTER

    check_host(args.host, args.allow_remote)
    store = args.play_store or Path(tempfile.mkdtemp(prefix="ludica-play-"))
    room = PlayRoom(store, tuple(Path(a) for a in args.agent), sandbox=not args.in_process,
                    abandon_after=ABANDON_AFTER if args.abandon_after is None else args.abandon_after,
                    served=tuple(Path(f) for f in args.folders))
    hosts = None if args.allow_remote else (*LOOPBACK_NAMES, host_name(args.host).lower())
    app = create_app(sort_folders([Path(f) for f in args.folders]), resamples=args.resamples, room=room, hosts=hosts)
    print(f"ludica serve: {url(args.host, args.port)} (Ctrl-C to stop); the Play page's games go to {store}",
          flush=True)
    # live pages hold their event streams open: on Ctrl-C they get a second, not forever, to end
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=1)
    return 0
