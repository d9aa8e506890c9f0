"""The course's one way to turn names into a seed: quiz draws, quiz variants and labs' hidden cases.

A seed is the first 63 bits of SHA-256 over the parts joined by "|", keyed with HMAC when an
instructor secret is given; never Python's hash(), which changes per process. The same parts give
the same seed on every machine, and without the secret nobody can tell which seed a keyed draw used.
"""
from __future__ import annotations

import hashlib
import hmac
import random


def derive_seed(*parts: object, secret: str | bytes = "") -> int:
    """A 63-bit seed from the parts; keyed with HMAC-SHA256 when a secret is given."""
    message = "|".join(map(str, parts)).encode()
    if secret:
        key = secret if isinstance(secret, bytes) else secret.encode()
        digest = hmac.new(key, message, hashlib.sha256).digest()
    else:
        digest = hashlib.sha256(message).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def rng_for(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))
