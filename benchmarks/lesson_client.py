"""A student working through a lesson, seen from the server: open the notebook as a session (a kernel in
the notebook's folder, as JupyterLab does) and run its code cells one by one over the kernel's websocket.

Shared by benchmarks/bench_hub.py (through a hub's proxy) and benchmarks/bench_server_memory.py (one
server on its own). `base` is the server's URL up to and including its base path (`.../user/<name>`).
"""
from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import requests

LESSON = "m1-training-vs-inference/02-memory-per-parameter.ipynb"   # imports torch, trains a step, plots, a quiz


def code_cells(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def open_session(base: str, token: str, path: str) -> tuple[str, str]:
    """POST /api/sessions for the notebook at `path` (relative to the server's root): (session, kernel id)."""
    answer = requests.post(f"{base}/api/sessions", headers={"Authorization": f"token {token}"}, timeout=120,
                           json={"path": path, "name": Path(path).name, "type": "notebook", "kernel": {"name": "python3"}})
    answer.raise_for_status()
    model = answer.json()
    return model["id"], model["kernel"]["id"]


def close_session(base: str, token: str, session: str) -> None:
    """What closing the notebook and shutting its kernel down does."""
    requests.delete(f"{base}/api/sessions/{session}", headers={"Authorization": f"token {token}"}, timeout=60)


async def run_cells(base: str, token: str, kernel: str, cells: list[str], cell_timeout: float = 600,
                    pause: float = 0) -> list[float]:
    """Each cell's latency, request sent to execute_reply received; a cell that fails raises with its error.
    `pause`: seconds between a cell's reply and the next request (a student reading)."""
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = base.replace("http", "ws", 1) + f"/api/kernels/{kernel}/channels"
    connection = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"},
                                                     request_timeout=120, connect_timeout=120))
    session, latencies = uuid.uuid4().hex, []
    try:
        for number, code in enumerate(cells):
            if pause and number:
                await asyncio.sleep(pause)
            msg_id = uuid.uuid4().hex
            began = time.monotonic()
            await connection.write_message(json.dumps({
                "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "bench", "session": session,
                           "version": "5.3"},
                "parent_header": {}, "metadata": {}, "channel": "shell",
                "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                            "allow_stdin": False}}))
            while True:
                raw = await asyncio.wait_for(connection.read_message(), cell_timeout)
                if raw is None:
                    raise ConnectionError(f"kernel {kernel}: websocket closed while running a cell")
                message = json.loads(raw)
                if message.get("parent_header", {}).get("msg_id") != msg_id or message["msg_type"] != "execute_reply":
                    continue
                if message["content"]["status"] != "ok":
                    raise RuntimeError(f"cell failed: {message['content'].get('ename')}: "
                                       f"{message['content'].get('evalue')}\n{code[:200]}")
                latencies.append(time.monotonic() - began)
                break
    finally:
        connection.close()
    return latencies


def process_memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of one process in MiB, from /proc/<pid>/smaps_rollup (PSS shares each shared page out
    among the processes that map it: the libraries every server loads count once in a sum of PSS)."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return fields["Rss"] / 1024, fields["Pss"] / 1024
