"""The tool's own RSA key set: it signs the JWT assertions `autograder lms` sends for an AGS/NRPS token,
and the LMS checks them against the public half the hub serves (`/hub/lti/jwks`).

    <course root>/lti/tool-keys.json   {"current": kid, "keys": [{"kid", "created", "private_pem"}, ...]}

The file is the instructor's only: 0600 in a 0700 folder inside their course (on the hub, their 0700
home), so no student server, sandbox or tutor can read it. Rotation adds a new current key and keeps
the old ones in the served key set until retired, so a token the LMS already holds, or an assertion
signed a moment ago, still verifies: nobody is logged out and no passback fails.
"""
from __future__ import annotations

import json
import os
import secrets
import stat
import time
from pathlib import Path

KEY_BITS = 2048
KEYS_FILE = "tool-keys.json"


class ToolKeyError(RuntimeError):
    """The key file is missing, unsafe or unreadable; the message names it and the fix."""


def keys_path(course_root: Path) -> Path:
    return Path(course_root) / "lti" / KEYS_FILE


def _new_key() -> dict:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    return {"kid": f"tool-{time.strftime('%Y%m%d')}-{secrets.token_hex(4)}", "created": time.time(), "private_pem": pem}


def _write(path: Path, data: dict) -> None:
    """Atomically, created 0600 from the start (never briefly world-readable)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(data, handle, indent=1)
    os.replace(tmp, path)


def load(path: Path) -> dict:
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise ToolKeyError(f"{path}: no tool key set; make one with `autograder lms keys`") from None
    if stat.S_IMODE(mode) & 0o077:
        raise ToolKeyError(f"{path}: mode {stat.S_IMODE(mode):o} lets others read the tool's private key; "
                        f"`chmod 600 {path}`, then rotate it (`autograder lms keys --rotate`)")
    try:
        data = json.loads(path.read_text())
        current = data["current"]
        if not any(k["kid"] == current for k in data["keys"]):
            raise ValueError(f"current key {current!r} is not in the file")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ToolKeyError(f"{path}: not a tool key set ({error})") from None
    return data


def ensure(path: Path) -> tuple[dict, bool]:
    """The key set, made on first use. Returns (keys, made)."""
    if Path(path).exists():
        return load(path), False
    key = _new_key()
    data = {"current": key["kid"], "keys": [key]}
    _write(Path(path), data)
    return data, True


def rotate(path: Path, keep: int = 2) -> dict:
    """A new current key; the newest `keep` keys (the new one included) stay in the key set."""
    data = load(path)
    key = _new_key()
    data = {"current": key["kid"], "keys": ([key] + data["keys"])[:max(2, keep)]}
    _write(Path(path), data)
    return data


def current(data: dict) -> tuple[str, str]:
    """(kid, private PEM) of the key that signs now."""
    key = next(k for k in data["keys"] if k["kid"] == data["current"])
    return key["kid"], key["private_pem"]


def public_jwks(data: dict) -> dict:
    """The JSON Web Key Set an LMS fetches: every kept key's public half, no private part."""
    import jwt
    from cryptography.hazmat.primitives import serialization

    keys = []
    for key in data["keys"]:
        public = serialization.load_pem_private_key(key["private_pem"].encode(), None).public_key()
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(public))
        keys.append({**jwk, "kid": key["kid"], "alg": "RS256", "use": "sig"})
    return {"keys": keys}
