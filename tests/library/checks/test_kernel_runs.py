"""The course kernel's record of when the learner last ran a cell (what `course check` compares with the
saved file): a front end's own requests that keep no history (completion helpers, widget managers,
silent runs) do not count; a cell the learner runs does."""
from __future__ import annotations

import json

from jupyter_client import KernelManager

from coursekit.app.kernel import kernelspec
from coursekit.kernel_runs import record_path


def test_only_the_learners_cells_count_as_runs(tmp_path):
    manager = KernelManager(connection_file=str(tmp_path / "kernel-test.json"))
    manager.kernel_spec.argv = kernelspec()["argv"]
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        record = record_path(manager.connection_file)
        read = lambda: json.loads(record.read_text())["last_run"]
        assert read() is None                                        # started, ran nothing
        client.execute_interactive("x = 1", silent=True, timeout=60)
        client.execute_interactive("y = 2", store_history=False, timeout=60)
        assert read() is None                                        # the front end's own requests
        client.execute_interactive("z = 3", timeout=60)
        assert read() is not None                                    # the learner's cell
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
