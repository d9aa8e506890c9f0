"""Wait for a condition, never for a fixed time: tests poll until something is true or a deadline passes."""
from __future__ import annotations

import time


def wait_for(condition, timeout: float, what: str, interval: float = 0.3):
    """Return condition()'s first truthy value; TimeoutError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what}")
