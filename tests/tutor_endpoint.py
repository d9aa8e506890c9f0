"""A recording front for an OpenAI-compatible endpoint: every request the tutor sends is kept (path,
headers, body) before it goes on. With `upstream`, requests are forwarded to a real server and its stream
relayed byte for byte (the end-to-end tests); without, it answers each request with `reply` as a
server-sent-event stream in the OpenAI chunk format, split into small deltas (the fast trust tests,
which check what the tutor sends, not what a model says)."""
from __future__ import annotations

import http.server
import json
import threading
import urllib.request
from dataclasses import dataclass, field


@dataclass
class Recorded:
    path: str
    headers: dict
    body: dict


@dataclass
class RecordingEndpoint:
    upstream: str | None = None            # e.g. http://127.0.0.1:PORT (no /v1)
    reply: str = "What does your function return for the first case?"
    requests: list[Recorded] = field(default_factory=list)

    def __enter__(self):
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                owner.requests.append(Recorded(self.path, dict(self.headers), json.loads(body)))
                if owner.upstream:
                    return self._forward(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                words = owner.reply.split(" ")
                for i, word in enumerate(words):
                    delta = {"content": word + (" " if i < len(words) - 1 else "")}
                    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.close_connection = True

            def _forward(self, body: bytes):
                request = urllib.request.Request(owner.upstream + self.path, data=body, method="POST",
                                                 headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(request, timeout=300) as response:
                    self.send_response(response.status)
                    self.send_header("Content-Type", response.headers.get("Content-Type", "text/event-stream"))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for line in response:             # relay as it streams
                        self.wfile.write(line)
                        self.wfile.flush()
                self.close_connection = True

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def sent_text(self) -> str:
        """Everything the tutor sent, as one string: every string in every body (message texts as they
        are, not JSON-escaped), every header, every path."""
        def strings(value):
            if isinstance(value, dict):
                return [s for k, v in value.items() for s in [str(k), *strings(v)]]
            if isinstance(value, list):
                return [s for v in value for s in strings(v)]
            return [str(value)]
        return "\n".join(s for r in self.requests for s in [r.path, *strings(r.headers), *strings(r.body)])
