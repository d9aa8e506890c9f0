"""Start one of the hub's children (a service, the proxy) bound to the hub: it ends with the hub, however
the hub ends, and on the hub's first signal.

    python -m coursekit.app.hub.bound COMMAND [ARGS...]

sets two things, then becomes COMMAND (exec: same pid, so the hub's pid files and checks still hold):

- the parent-death signal (Linux prctl PR_SET_PDEATHSIG): SIGTERM when the hub's process goes, also by
  SIGKILL or a crash, when it cannot clean up. JupyterHub starts services and the proxy in sessions of
  their own (so Ctrl+C reaches the hub alone), so nothing else ends them: a test run's idle culler was
  still running 75 minutes after its hub, two proxies two hours after (issue 53).
- SIGINT back to its default. The hub stops a service with SIGINT, waits 10 s, then SIGTERM; a process
  started from one that ignores SIGINT (a background job, a test worker, some init systems) inherits the
  ignoring across exec, and the idle culler sat out the wait: `course hub stop` took 30-37 s (issue 54).
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1        # <linux/prctl.h>


def end_with_parent(sig: int = signal.SIGTERM) -> None:
    """Ask the kernel for `sig` when the parent goes; kept across exec (not across a set-uid one)."""
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m coursekit.app.hub.bound COMMAND [ARGS...]", file=sys.stderr)
        return 2
    parent = os.getppid()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    end_with_parent()
    if os.getppid() != parent:      # the hub went before the request took hold: nothing would signal us
        return 0
    os.execvp(argv[0], argv)


def command(python: str, argv: list[str]) -> list[str]:
    """`argv`, started bound to the hub."""
    return [python, "-m", "coursekit.app.hub.bound", *argv]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
