"""Grade one notebook as whoever runs this script, and print the result as JSON (tests/grading/sandbox/test_sandbox_userns.py
runs it as `nobody`, the way an instructor's terminal on the hub grades: as their own, non-root user).

    python grade_as_user.py JOB.json        JOB: {"spec", "notebook", "cells": [source inserted after the
                                            first cell], "replace": {grade_id: the source of that cell},
                                            "isolate", "wall_s", "max_procs", "out"}

A cell's source may name {GRADER_PID} and {LISTEN_PORT}: this process's pid and a loopback port it listens
on while grading, which a confined child must be unable to signal or reach.
"""
import json
import os
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import nbformat  # noqa: E402 - imported after the sys.path set-up above

from autograder.judge.engine import GraderError, Limits, grade_submission  # noqa: E402 - imported after the sys.path set-up above
from autograder.spec import load_spec  # noqa: E402 - imported after the sys.path set-up above


def main(job_path: str) -> int:
    job = json.loads(Path(job_path).read_text())
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    nb = nbformat.read(job["notebook"], as_version=4)
    for offset, source in enumerate(job["cells"]):
        source = source.replace("{GRADER_PID}", str(os.getpid())).replace("{LISTEN_PORT}", str(listener.getsockname()[1]))
        nb.cells.insert(1 + offset, nbformat.v4.new_code_cell(source))
    for cell in nb.cells:
        grade_id = (cell.metadata.get("nbgrader") or {}).get("grade_id")
        if grade_id in job.get("replace", {}):
            cell.source = job["replace"][grade_id]
    submitted = Path(job["out"]) / "submitted.ipynb"
    nbformat.write(nb, submitted)
    limits = Limits(isolate=job.get("isolate", True), wall_s=job.get("wall_s", 120),
                    max_procs=job.get("max_procs", 64))
    try:
        result = grade_submission(submitted, load_spec(job["spec"]), student_id="mallory", secret=b"k" * 32,
                                  limits=limits)
    except GraderError as error:
        print(json.dumps({"refused": str(error)}))
        return 0
    print(json.dumps(result.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
