"""The course's notebook runs read a kernel's reply even when its wake-up was missed
(coursekit/app/kernel_client.py): the stall that held Lab 4's solution run for a whole cell timeout."""
from __future__ import annotations

import asyncio
import tempfile
import threading
import time
from pathlib import Path
from queue import Empty

import nbformat
import zmq
import zmq.asyncio
from jupyter_client.channels import AsyncZMQSocketChannel
from jupyter_client.session import Session
from nbclient import NotebookClient

from coursekit.app.kernel_client import REARM_S, SteadyChannel, SteadyKernelClient, kernel_config


async def reply_after_a_missed_wakeup(channel_class: type, budget_s: float) -> dict | None:
    """A client waits, with no timeout of its own (as nbclient waits out a long cell), for a reply; the
    reply arrives, and its edge-triggered wake-up is consumed before the event loop looks (as another
    thread's read of ZMQ_EVENTS, or a busy machine's interleaving, does). Returns the message the wait
    gave, or None if it was still waiting, with the reply in its socket, after budget_s."""
    session = Session(key=b"")
    client_context, kernel_context = zmq.asyncio.Context(), zmq.Context()
    kernel = kernel_context.socket(zmq.ROUTER)
    client = client_context.socket(zmq.DEALER)
    try:
        client.connect(f"tcp://127.0.0.1:{kernel.bind_to_random_port('tcp://127.0.0.1')}")
        channel = channel_class(client, session)
        session.send(client, "execute_request", {"code": "1 + 1"})
        identity, *_ = kernel.recv_multipart()
        waiting = asyncio.ensure_future(channel.get_msg(timeout=None))
        await asyncio.sleep(0)                       # the wait is registered with the event loop
        session.send(kernel, "execute_reply", {"status": "ok"}, ident=identity)
        plain = zmq.Socket.shadow(client.underlying)
        deadline = time.monotonic() + 30
        while not plain.getsockopt(zmq.EVENTS) & zmq.POLLIN:   # reading the state drains the edge
            assert time.monotonic() < deadline, "the reply never reached the client's socket"
            time.sleep(0.001)
        done, _ = await asyncio.wait({waiting}, timeout=budget_s)
        if not done:
            assert plain.getsockopt(zmq.EVENTS) & zmq.POLLIN
            waiting.cancel()
            return None
        return waiting.result()
    finally:
        client.close(linger=0)
        kernel.close(linger=0)
        client_context.term()
        kernel_context.term()


def run(coroutine):
    """asyncio.run in a thread of its own: a browser test earlier in the same worker can leave an event
    loop running in the main thread (Playwright's sync API), where asyncio.run refuses to start."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coroutine)))
    thread.start()
    thread.join()
    assert result, "the scenario raised (its traceback is above)"
    return result[0]


def test_a_reply_whose_wakeup_was_missed_is_still_read():
    reply = run(reply_after_a_missed_wakeup(SteadyChannel, budget_s=60))   # read in REARM_S
    assert reply is not None, "the steady channel slept through a reply waiting in its socket"
    assert reply["header"]["msg_type"] == "execute_reply"


def test_the_plain_channel_sleeps_through_it():
    """The scenario above is the failure itself: jupyter_client's own channel waits on with the reply in
    its socket (with a timeout, until the timeout: nbclient's is the cell's, minutes). If a pyzmq release
    stops missing this wake-up, this fails, and SteadyChannel may no longer be needed."""
    assert run(reply_after_a_missed_wakeup(AsyncZMQSocketChannel, budget_s=4 * REARM_S)) is None


def test_a_wait_with_nothing_to_read_still_ends_at_its_timeout():
    async def wait() -> bool:
        context = zmq.asyncio.Context()
        socket = context.socket(zmq.DEALER)
        try:
            await SteadyChannel(socket, Session(key=b"")).get_msg(timeout=3 * REARM_S)
        except Empty:
            return True
        finally:
            socket.close(linger=0)
            context.term()
        return False

    assert run(wait()), "get_msg returned a message from a socket nothing was sent to"


def test_nbclient_runs_with_the_steady_client_over_unix_sockets():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("6 * 7")])
    with tempfile.TemporaryDirectory() as sockets:
        client = NotebookClient(nb, kernel_name="python3", timeout=120, config=kernel_config(Path(sockets)))
        with client.setup_kernel():
            assert isinstance(client.kc, SteadyKernelClient)
            assert client.km.transport == "ipc" and client.km.ip.startswith(sockets)
            client.execute_cell(nb.cells[0], 0)
    assert nb.cells[0].outputs[0]["data"]["text/plain"] == "42"


def test_nbgrader_runs_in_this_course_connect_with_the_steady_client():
    """nbgrader's autograde and Validate run notebooks with nbclient too; the course's nbgrader_config.py
    (copied into every test course and instructor folder) gives them the same client."""
    from nbgrader.preprocessors import Execute
    from traitlets.config.loader import PyFileConfigLoader

    from paths import ROOT

    config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    execute = Execute(config=config)
    assert execute.kernel_manager_class(config=execute.config).client_factory is SteadyKernelClient
