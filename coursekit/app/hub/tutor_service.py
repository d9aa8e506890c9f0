"""The class's tutor as a JupyterHub service: the only process that holds the model's key and the
only one that counts questions, so neither can be copied or reset by a student.

`course hub` runs it beside the hub (as root, the hub's user) on a loopback port kept in
<data>/tutor-service-port, and points every student's server at it (COURSE_TUTOR_SERVICE). A
student's tutor sends its request here with the server's own JupyterHub token instead of a key; the
service asks the hub whose token it is, applies the class's limits from <data>/tutor.json (read on
every question, so `course tutor off LAB` and a new rate apply at once), and relays the request to the
class's endpoint with the key from `key_file` (which only root needs to read). Students' servers can
also reach it through the proxy at /services/tutor/.

    python -m coursekit.app.hub.tutor_service DATA_FOLDER
"""
from __future__ import annotations

import json
import sys
import time
from collections import defaultdict, deque
from pathlib import Path

from coursekit.app.hub.classroom import service_port

HOUR_S = 3600
MAX_BODY = 512 * 1024        # a question with its context is tens of KB; more is not a question
PORT_FILE = "tutor-service-port"


def service_url(data: Path) -> str:
    """The service's loopback URL (with the OpenAI-style /v1), its port chosen once and kept, so a hub
    restart mid-class does not strand the students' servers that are still running."""
    return f"http://127.0.0.1:{service_port(data, PORT_FILE)}/v1"


def hub_service(data: Path, python: str) -> dict:
    """The JupyterHub service entry: a managed process on that port, routed at /services/tutor/."""
    base = service_url(data).removesuffix("/v1")
    return {"name": "tutor", "url": base, "command": [python, "-m", "coursekit.app.hub.tutor_service", str(data)]}


class Limiter:
    """Questions per person in the last hour, in the service's memory (a hub restart starts them again)."""

    def __init__(self):
        self.asked: dict[str, deque] = defaultdict(deque)

    def allow(self, user: str, per_hour: int | None, now: float) -> float:
        """0 if `user` may ask now (and counts it), else the seconds until they may."""
        times = self.asked[user]
        while times and now - times[0] >= HOUR_S:
            times.popleft()
        if per_hour is not None and len(times) >= per_hour:
            return HOUR_S - (now - times[0])
        times.append(now)
        return 0.0


def upstream_body(request: dict, config) -> bytes:
    """What the class's endpoint gets: the student's messages, the class's model and token cap."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ValueError("'messages' must be a list of chat messages")
    wanted = request.get("max_tokens")
    tokens = min(wanted, config.max_tokens) if isinstance(wanted, int) and wanted > 0 else config.max_tokens
    return json.dumps({"model": config.model, "messages": messages, "stream": True, "max_tokens": tokens,
                       "temperature": 0.3}).encode()


def make_app(data: Path, auth, limiter: Limiter | None = None):
    from tornado import httpclient, web

    from coursekit.tutor.config import TutorConfigError, read

    limiter = limiter or Limiter()
    config_path = Path(data) / "tutor.json"

    class Chat(web.RequestHandler):
        def fail(self, code: int, message: str) -> None:
            self.set_status(code)
            self.set_header("Content-Type", "application/json")
            self.finish(json.dumps({"error": {"message": message}}))

        async def post(self):
            found = auth.auth_header_pat.match(self.request.headers.get("Authorization", ""))
            if not found:
                return self.fail(401, "no JupyterHub token: ask the tutor from your own JupyterLab on the hub")
            user = await auth.user_for_token(found.group(1), sync=False)
            if not user or user.get("kind", "user") != "user":
                return self.fail(403, "this token is not a student's or instructor's of this hub")
            try:
                config = read(config_path)
            except TutorConfigError as error:
                return self.fail(503, f"the class's tutor is not set up: {error}")
            if len(self.request.body) > MAX_BODY:
                return self.fail(413, f"a question of {len(self.request.body):,} bytes is over the "
                                      f"{MAX_BODY:,} the class's tutor takes")
            try:
                body = upstream_body(json.loads(self.request.body), config)
            except ValueError as error:
                return self.fail(400, f"not a chat request: {error}")
            wait = limiter.allow(user["name"], config.rate_per_hour, time.monotonic())
            if wait:
                return self.fail(429, f"{config.rate_per_hour} questions an hour is the class's limit; the next "
                                      f"one can be asked in {max(1, round(wait / 60))} min")
            await self.relay(config, body)

        async def relay(self, config, body: bytes) -> None:
            """Stream the endpoint's answer through as it comes; its errors become the student's, keyless."""
            status: list[int] = []
            error_text = bytearray()

            def on_header(line: str) -> None:
                if line.startswith("HTTP/") and not status:
                    status.append(int(line.split()[1]))

            def on_chunk(chunk: bytes) -> None:
                if status and status[0] == 200:
                    self.write(chunk)
                    self.flush()
                else:
                    error_text.extend(chunk[: 2000 - len(error_text)])

            headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
            try:
                key = config.key()
            except Exception as error:     # noqa: BLE001 - the key file is the instructor's to fix; say so, keep serving
                return self.fail(503, f"the class's tutor cannot read its key: {error}")
            if key:
                headers["Authorization"] = f"Bearer {key}"
            self.set_header("Content-Type", "text/event-stream")
            self.set_header("Cache-Control", "no-cache")
            request = httpclient.HTTPRequest(config.url(), method="POST", body=body, headers=headers,
                                             header_callback=on_header, streaming_callback=on_chunk,
                                             connect_timeout=20, request_timeout=300)
            answer = await httpclient.AsyncHTTPClient().fetch(request, raise_error=False)
            if status and status[0] == 200:
                return self.finish()
            if not status:
                return self.fail(502, f"cannot reach the class's model server ({answer.error})")
            detail = error_text.decode("utf-8", "replace").strip().replace(key or "\0", "[key]")
            return self.fail(502, f"the class's model server answered HTTP {status[0]}: {detail[:500]}")

    class Here(web.RequestHandler):
        """The service's own address: the hub's health check (and its start) asks for it; a 404 there
        read as a fault in the hub's log."""
        def get(self):
            self.set_header("Content-Type", "text/plain; charset=utf-8")
            self.finish("the class's tutor: POST v1/chat/completions from a student's server\n")

    return web.Application([(r"(?:/services/tutor)?/v1/chat/completions", Chat), (r"(?:/services/tutor)?/?", Here)])


def main(argv: list[str] | None = None) -> int:
    from jupyterhub.services.auth import HubAuth

    from coursekit.app.hub.services import serve_until_stopped

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m coursekit.app.hub.tutor_service DATA_FOLDER", file=sys.stderr)
        return 2
    auth = HubAuth(cache_max_age=60)          # the hub's API URL and this service's token come from the env
    serve_until_stopped(make_app(Path(args[0]), auth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
