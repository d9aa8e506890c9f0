"""What passes between the trusted engine, a warm worker and the sandboxed child it forks.

    engine -> worker   one JSON request line on stdin (job file, result file, spec, limits);
    worker -> engine   one JSON reply line on stdout (exit code, signal, time, memory, output counts,
                       and the child's flag stream as the worker received it, never parsed there);
    child  -> engine   the report, JSON in the result file (RESULT_FD), at most RESULT_BYTES; and
                       runtime flags streamed line by line on FLAG_FD as they happen, ended by FLAGS_END.

Graded without root, the student's code runs as PID 2 of a PID namespace whose PID 1 reports that
process's wait status and the processes it left as one JSON object on STATUS_FD (userns.py); student
code never holds that pipe. The child's exit status says why it stopped when it could not report (RESULT_TOO_LARGE,
OUT_OF_MEMORY). Everything the child sends is untrusted: the engine reads it only through the
functions below, which turn anything malformed into a marker, never an exception.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

RESULT_FD = 3                 # the child's report file, as the child sees it
FLAG_FD = 4                   # the child streams runtime flags here (harness.StreamedFlags)
STATUS_FD = 5                 # not root: PID 1 of the child's namespace reports the student process's end here
FLAG_BYTES = 16384            # kept per child by the worker: the first and last half (worker.FlagBytes)
RESULT_BYTES = 32 * 1024 * 1024   # a larger report is no report
RESULT_TOO_LARGE = 75         # exit status the engine reads as "result too large"
OUT_OF_MEMORY = 76            # exit status the engine reads as "memory": a MemoryError reached the top
# a timed run whose child could not install the process-start filter (nofork.py): its time is not trusted
NOFORK_MISSING = "sandbox: this timed run cannot refuse process starts"
FLAGS_END = "end of flags"    # the harness's last line on the flag pipe: anything else means it was cut
FLAG_LINE = re.compile(r"^(tamper|exit|signals|fork|memory|env|files|network|introspection|sandbox|reference): ")
MALFORMED = object()          # a report that exists but does not parse as a JSON object

# The grading environment, one definition for every process that runs a lab's code for grading or
# validation (the warm worker, the child it forks, `autograder validate`'s solution run): quick mode, the
# grading marker, a headless plotting backend, one thread per process (as `course check` runs), CPU only.
GRADING_ENVIRONMENT = {"COURSE_QUICK": "1", "COURSE_GRADING": "1", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
                       "MKL_NUM_THREADS": "1", "LANG": "C.UTF-8", "CUDA_VISIBLE_DEVICES": ""}
# Variable names a submission has no business reading (flags.py statically, harness.py at run time).
GRADING_ENV = re.compile(r"NBGRADER|GRAD|COURSE|SECRET|AUTOGRADER|JUPYTER|PYTEST|CI$", re.I)


def streamed_flags(reply: dict) -> tuple[set[str], bool]:
    """The flags the child streamed while it ran, and whether the harness reached its end line."""
    lines = str(reply.get("streamed_flags", "")).splitlines()
    ended = bool(lines) and lines[-1] == FLAGS_END
    return {line[:200] for line in lines if FLAG_LINE.match(line)}, ended


def read_report(path: Path) -> Any:
    """The child's report: None when there is none, MALFORMED when it is not readable JSON."""
    try:
        if path.stat().st_size > RESULT_BYTES:
            return None
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        report = json.loads(raw)
    except (ValueError, RecursionError):
        return MALFORMED if raw else None
    return report if isinstance(report, dict) else MALFORMED
