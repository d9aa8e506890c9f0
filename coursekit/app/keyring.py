"""A session keyring of the process's own, for code that must not reach its starter's kernel keys.

Linux keeps keys (Kerberos tickets in `KEYRING:` caches, tokens, ...) in keyrings; a process inherits
its parent's session keyring across fork and exec, uid changes and user namespaces alike. A grading child
(autograder/sandbox/child.py) and each hub user's server (coursekit/app/hub/spawner.py) join a new,
empty, anonymous session keyring before any untrusted code runs, so they can neither read the starter's
keys nor plant one that outlives them (issue 51).
"""
from __future__ import annotations

import ctypes
import os
import platform

KEYCTL_JOIN_SESSION_KEYRING = 1
# keyctl(2) has no libc wrapper (libkeyutils is not always there): the raw syscall, by architecture
SYS_KEYCTL = {"x86_64": 250, "aarch64": 219, "arm64": 219, "ppc64le": 271, "s390x": 280}.get(platform.machine())

_libc = ctypes.CDLL(None, use_errno=True)


def join_new_session_keyring() -> str | None:
    """Give this process a new anonymous session keyring; None when done, else why not (the caller flags
    it). Where keyctl itself is refused (a container's seccomp profile), no key can be read either."""
    if SYS_KEYCTL is None:
        return f"no keyctl syscall number known for {platform.machine()}"
    if _libc.syscall(SYS_KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        return f"keyctl(JOIN_SESSION_KEYRING) failed: {os.strerror(ctypes.get_errno())}"
    return None
