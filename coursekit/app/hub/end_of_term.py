"""`course hub remove-accounts`: the end of term. The class's Unix accounts are removed; their homes,
the exchange, the gradebooks and the hub's database stay in the data folder, to archive or delete.

The class's accounts are exactly those whose home is in `<data>/home/` (the roster's, and anyone who
arrived from the LMS), with a uid of a person (accounts.FIRST_UID and up): nothing else on the
machine is touched. The hub must be stopped first (`course hub stop`), so no server runs as them.
"""
from __future__ import annotations

import os
import pwd
import signal
import subprocess
from pathlib import Path

from coursekit.app.hub.accounts import FIRST_UID
from coursekit.app.hub.classroom import Layout
from coursekit.app.hub.stop import _alive, _pid


class EndOfTermError(RuntimeError):
    pass


def class_accounts(layout: Layout) -> list[pwd.struct_passwd]:
    homes = layout.homes.resolve()
    return sorted((a for a in pwd.getpwall() if a.pw_uid >= FIRST_UID and Path(a.pw_dir).parent == homes),
                  key=lambda a: a.pw_name)


def _end_processes(uid: int) -> None:
    """What a person left running after the class stopped (a terminal's background job): SIGKILL, since
    userdel refuses an account with processes."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    os.kill(int(entry), signal.SIGKILL)
            except (FileNotFoundError, ProcessLookupError):
                pass


def remove_accounts(data: str | Path, say=print) -> int:
    layout = Layout(data)
    if not layout.settings.is_file():
        raise EndOfTermError(f"{layout.settings} not found: no class was set up with --data {layout.data}")
    if os.geteuid() != 0:
        raise EndOfTermError("removing accounts needs root")
    if _alive(_pid(layout.data / "jupyterhub.pid"), "jupyterhub"):
        raise EndOfTermError(f"the hub is running: `course hub stop --data {layout.data}` first")
    accounts = class_accounts(layout)
    for account in accounts:
        _end_processes(account.pw_uid)
        done = subprocess.run(["userdel", account.pw_name], capture_output=True, text=True)
        if done.returncode != 0:
            raise EndOfTermError(f"userdel {account.pw_name} failed: {done.stderr.strip()}")
        say(f"course hub: removed the account {account.pw_name} (home kept: {account.pw_dir})")
    say(f"course hub: {len(accounts)} account(s) removed; homes, exchange, grades and the hub's database are "
        f"in {layout.data} (archive it, then delete it; `course hub` with the same roster would make the "
        "accounts again)")
    return 0
