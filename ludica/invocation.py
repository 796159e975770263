"""What a run keeps of how it was started, beside its settings: the command line, ludica's
version, the machine and the time, once per start (the report's header shows them)."""
from __future__ import annotations

import json
import os
import platform
import shlex
from datetime import UTC, datetime

from ludica import __version__, gdl

__all__ = ["record_invocation"]


def record_invocation(store, base, argv: list[str]) -> None:
    """What the report's header says of a run beyond its settings, kept in its store: under
    `invocations` (JSON, a list: one entry per start, a resumed run adds one) the command line,
    ludica's version, the machine (system, architecture, cores, Python; no host name) and the time
    it started; under `base` the canonical text of the stage the unseen variants were drawn from
    (the report says what each changed). Neither is part of the run's identity (Run.start)."""
    held = json.loads(store.settings().get("invocations", "[]"))
    held.append({"command": shlex.join(["ludica", *argv]), "version": __version__,
                 "machine": f"{platform.system()} {platform.release()} {platform.machine()}, "
                            f"{os.cpu_count()} cores, Python {platform.python_version()}",
                 "started": datetime.now(UTC).isoformat(timespec="seconds")})
    store.save_settings({"invocations": json.dumps(held)} | ({} if base is None else {"base": gdl.format(base)}))
