"""Running one of the class's hub services (the tutor, the leaderboards) until the hub stops it.

The hub stops a managed service with SIGINT, waits, then sends SIGTERM. A process started from one that
ignores SIGINT (a background job, a test worker, some init systems) inherits the ignoring, so a
service that relied on Python's default handler sat out the hub's wait: with two services a stopping
hub spent over a minute, long enough for its own service health check to trip over the half-removed
services and log a traceback. Both signals are handled here, so a service ends at once on either.
"""
from __future__ import annotations

import asyncio
import os
import signal
from urllib.parse import urlparse


def serve_until_stopped(app) -> None:
    """Serve the tornado `app` on the address the hub gave ($JUPYTERHUB_SERVICE_URL) until SIGINT or SIGTERM."""
    where = urlparse(os.environ["JUPYTERHUB_SERVICE_URL"])

    async def serve():
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        server = app.listen(where.port, address=where.hostname)
        await stop.wait()
        server.stop()

    asyncio.run(serve())
