"""Run a command as UID:GID inside a user namespace whose own limit allows no further user namespace:
the stand-in, in tests, for a kernel or container that forbids unprivileged user namespaces.

    python no_user_namespaces.py UID GID -- COMMAND ...      (as root)
"""
import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000


def main(uid: int, gid: int, command: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    go_r, go_w = os.pipe()
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        if libc.unshare(CLONE_NEWUSER):
            os._exit(90)
        os.write(ready_w, b"1")
        os.read(go_r, 1)                            # the parent has written the maps
        with open("/proc/sys/user/max_user_namespaces", "w") as limit:
            limit.write("0")
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        os.execvp(command[0], command)
    if os.read(ready_r, 1) != b"1":
        return 90
    for name in ("uid_map", "gid_map"):             # the host's ids, unchanged, inside
        with open(f"/proc/{pid}/{name}", "w") as handle:
            handle.write("0 0 65536")
    os.write(go_w, b"1")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    separator = sys.argv.index("--")
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[separator + 1:]))
