"""Each lab's solution notebook run start to finish with nbclient on the CPU, as a student's Run All
does (full sizes), against the same notebook in quick mode (the small sizes grading and tests use).
Prints a markdown table for benchmarks/RESULTS.md, with the machine's cores and load average, since
the numbers a lab's introduction states come from here.

Besides wall time it reports the kernel's CPU seconds (user + system of the kernel process and of the
child processes it has waited for, such as Lab 2's all-reduce workers, read with psutil, which ipykernel
depends on): on a machine other work is sharing, wall time grows with the load
while CPU seconds stay close to the work the notebook does, so they say more about an idle machine.
`--cells N` also prints the N code cells of each full run that took the most CPU; `--save DIR` keeps
each executed full run (DIR/<lab>.ipynb), to read what its measurement cells printed.

    .venv/bin/python benchmarks/lab_full_runs.py [--cells N] [--save DIR] [LAB ...]
"""
from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import psutil
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    wall_s: float = 0.0
    cpu_s: float = 0.0                                   # the kernel and its children, start-up included
    cells: list[tuple[str, float, float]] = field(default_factory=list)   # (cell name, wall s, CPU s)
    notebook: nbformat.NotebookNode | None = None                          # executed, with outputs


def kernel_cpu(client: NotebookClient) -> float:
    times = psutil.Process(client.km.provisioner.pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def cell_name(cell, index: int) -> str:
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return f"[{index}] {grade_id}" if grade_id else f"[{index}]"


def run(path: Path, quick: bool) -> Run:
    nb = nbformat.read(path, as_version=4)
    env = {"MPLBACKEND": "Agg", "COURSE_DEVICE": "cpu"}
    saved = dict(os.environ)
    os.environ.pop("COURSE_QUICK", None)
    os.environ.update({**env, **({"COURSE_QUICK": "1"} if quick else {})})   # the kernel inherits it
    result, started = Run(), {}
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})

    def before(cell, cell_index, **_):
        started[cell_index] = (time.perf_counter(), kernel_cpu(client))

    def after(cell, cell_index, **_):
        wall0, cpu0 = started[cell_index]
        result.cpu_s = kernel_cpu(client)                # the last cell's leaves the whole run's
        result.cells.append((cell_name(cell, cell_index), time.perf_counter() - wall0, result.cpu_s - cpu0))

    client.on_cell_execute, client.on_cell_executed = before, after
    try:
        start = time.perf_counter()
        client.execute()
        result.wall_s = time.perf_counter() - start
        result.notebook = nb
        return result
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labs", nargs="*", help="lab ids (default: every lab in solutions/)")
    parser.add_argument("--cells", type=int, default=0, metavar="N",
                        help="also print the N code cells of each full run with the most kernel CPU")
    parser.add_argument("--save", type=Path, metavar="DIR", help="write each executed full run to DIR/<lab>.ipynb")
    args = parser.parse_args()
    labs = args.labs or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir())
    print(f"{os.cpu_count()} CPU cores; load average before: {os.getloadavg()[0]:.1f}")
    print("| lab | full run (s) | kernel CPU s | quick mode (s) | full / quick | load average after |")
    print("|---|---|---|---|---|---|")
    slowest = {}
    for lab in labs:
        path = ROOT / "solutions" / lab / f"{lab}.ipynb"
        full, quick = run(path, quick=False), run(path, quick=True)
        slowest[lab] = sorted(full.cells, key=lambda c: -c[2])[:args.cells]
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            nbformat.write(full.notebook, args.save / f"{lab}.ipynb")
        print(f"| {lab} | {full.wall_s:.1f} | {full.cpu_s:.1f} | {quick.wall_s:.1f} | "
              f"{full.wall_s / quick.wall_s:.1f}x | {os.getloadavg()[0]:.1f} |", flush=True)
    for lab, cells in slowest.items():
        if cells:
            print(f"\n{lab}, full run, the {len(cells)} cells with the most kernel CPU:")
            print("| cell | wall s | kernel CPU s |\n|---|---|---|")
            for name, wall, cpu in cells:
                print(f"| {name} | {wall:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
