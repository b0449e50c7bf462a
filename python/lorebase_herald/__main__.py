"""``lorebase-herald`` and ``python -m lorebase_herald``: the server's command line.

Same arguments, settings, subcommands (``demo``, ``call``, ``tools``, ``kb``), exit
codes and signal handling as the native ``lorebase-herald`` binary: the command line
itself runs in the native module.
"""

from __future__ import annotations

import os
import signal
import sys
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing at startup

from . import _native

if TYPE_CHECKING:
    from typing import List, NoReturn, Optional

#: The command's name.
PROGRAM = "lorebase-herald"


def launcher() -> str:
    """How an MCP host should start this server, as `demo` prints it in the host
    configurations (and the command line names itself in its usage)."""
    prefix_parts = os.path.normpath(sys.prefix).split(os.sep)
    if os.environ.get("UV") and any(part.startswith("archive-v") for part in prefix_parts):
        return f"uvx {PROGRAM}"  # an ephemeral environment in uv's cache
    script = sys.argv[0] if sys.argv else ""
    name = os.path.basename(script)
    if os.path.splitext(name)[0] == PROGRAM and os.path.isfile(script) and " " not in script:
        return os.path.realpath(script)  # the console script, as the binary gives its own path
    if name == "__main__.py" and " " not in sys.executable:
        return f"{sys.executable} -m lorebase_herald"
    return PROGRAM


def main(argv: Optional[List[str]] = None) -> NoReturn:
    """Runs the command line with ``argv`` (default: ``sys.argv[1:]``) and exits with its code."""
    args = sys.argv[1:] if argv is None else list(argv)
    # Signals go to the server as they do in the native binary: without this,
    # Python's SIGINT handler would record a KeyboardInterrupt and raise it after
    # the server had already shut down cleanly.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    code = _native.run_cli([launcher(), *args])
    sys.exit(code)


if __name__ == "__main__":
    main()
