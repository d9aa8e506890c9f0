"""A notebook's code cells run in order, in one namespace, as a plain script: for a machine with a GPU
but without Jupyter (the device machine a session may borrow), to see a lab use the GPU end to end.

The grader's hidden tests (between nbgrader's BEGIN/END HIDDEN TESTS) and the cells that need a Jupyter
kernel (`check_work` and `what_works`: check_here) are left out; IPython magics are dropped. Each cell
prints [ok] or [FAIL] with its time; the first failure stops the run.

    python3 benchmarks/notebook_as_script.py solutions/lab6-serving/lab6-serving.ipynb
"""
from __future__ import annotations

import json
import re
import sys
import time

KERNEL_ONLY = ("check_work", "what_works")


def main(path: str) -> int:
    import matplotlib

    matplotlib.use("Agg")
    cells = json.load(open(path, encoding="utf-8"))["cells"]
    namespace = {"__name__": "__main__"}
    for index, cell in enumerate(cells):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", f"cell {index}")
        if cell["cell_type"] != "code" or grade_id in KERNEL_ONLY:
            continue
        source = re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", "".join(cell["source"]), flags=re.S)
        source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        start = time.perf_counter()
        try:
            exec(compile(source, f"{path}:{grade_id}", "exec"), namespace)
        except Exception as error:      # noqa: BLE001  (named, then the run stops)
            print(f"[FAIL] {grade_id}: {type(error).__name__}: {error}", flush=True)
            return 1
        print(f"[ok] {grade_id} {time.perf_counter() - start:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
