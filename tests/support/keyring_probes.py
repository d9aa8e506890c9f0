"""What the keyring tests run (tests/grading/sandbox/): a stand-in grader that holds a key in a session
keyring of its own and checks, after grading, that nothing was planted there; and the notebook code that
looks for the grader's key and plants one (issue 51)."""

KEYRING_WRAPPER = """
import ctypes, platform, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
SESSION = ctypes.c_int(-3)
assert libc.syscall(KEYCTL, 1, None) >= 0                       # a new session keyring for this test
assert libc.syscall(ADD_KEY, b"user", b"grader-token", b"kerberos", 8, SESSION) >= 0
assert libc.syscall(KEYCTL, 10, SESSION, b"user", b"grader-token", 0) >= 0      # the search can find it
code = subprocess.run(sys.argv[1:]).returncode
planted = libc.syscall(KEYCTL, 10, SESSION, b"user", b"planted", 0) >= 0
sys.exit(3 if planted else code)
"""

PROBE_KEYS = """import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
KEYCTL = {"x86_64": 250, "aarch64": 219}[platform.machine()]
ADD_KEY = {"x86_64": 248, "aarch64": 217}[platform.machine()]
found = libc.syscall(KEYCTL, 10, ctypes.c_int(-3), b"user", b"grader-token", 0) >= 0
libc.syscall(ADD_KEY, b"user", b"planted", b"x", 1, ctypes.c_int(-3))
"""
