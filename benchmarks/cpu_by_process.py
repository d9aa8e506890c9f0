"""Where a command's CPU goes, by kind of process: run a command (e.g. `./course.sh test`) and sample every
process on the machine once a second from /proc, adding each one's CPU since the last sample to its kind
(a Jupyter kernel, a grading child, Chromium, nbgrader, a hub...). Prints a table; `--json` keeps the raw
totals and the costliest command lines.

    .venv/bin/python benchmarks/cpu_by_process.py [--json out.json] -- ./course.sh test

Why sample rather than time: servers and kernels outlive their parents (orphaned to init), so the command's
own rusage misses them, and a test run's processes are too many and too varied to wrap one by one. A process
that lives less than one interval is missed, and so is the last interval of every process that ends; the
machine's total from /proc/stat (every process, this machine's other work too) is printed beside the
attributed sum, and the gap is reported as "not seen", never spread over the kinds.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
# (kind, pattern over "comm\0cmdline"), first match wins; ordered from specific to general.
KINDS = [
    ("set-up: pip and npm", r"pip install|npm ci|\bnpm\b|compileall"),
    ("Chromium", r"chrom(e|ium)|headless_shell"),
    ("configurable-http-proxy", r"configurable-http-proxy"),
    ("node (site, axe, other)", r"^node\b"),
    ("Jupyter kernel", r"ipykernel_launcher|ipykernel\.kernelapp"),
    ("grading child (sandbox)", r"autograder\.sandbox|autograder/sandbox|grading_child|harness"),
    ("nbgrader", r"nbgrader"),
    ("JupyterHub and spawned servers", r"jupyterhub|batchspawner|jupyterhub-singleuser|course hub"),
    ("JupyterLab server (course start)", r"jupyter.lab|jupyter-lab|jupyter_server|course start|coursekit\.app\.cli start"),
    ("website build (course site)", r"coursekit\.app\.cli site|sphinx"),
    ("autograder command", r"autograder\.|bin/autograder"),
    ("Dask scheduler and workers", r"dask|distributed"),
    ("pytest workers", r"pytest|xdist|execnet|exec\(eval\(sys\.stdin"),
    ("other Python", r"python"),
]


def machine_cpu_s() -> float:
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    busy = sum(int(v) for v in fields) - int(fields[3]) - int(fields[4])     # less idle and iowait
    return busy / TICK


def snapshot() -> dict[tuple[int, int], tuple[float, str]]:
    """(pid, start tick) -> (CPU seconds so far, "comm\\0cmdline") for every live process; the start tick
    keeps a reused pid apart from the process that had it before."""
    seen = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
            cmdline = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue                                  # ended between listing and reading
        comm, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        seen[int(entry.name), int(rest[19])] = ((int(rest[11]) + int(rest[12])) / TICK, f"{comm}\0{cmdline.strip()}")
    return seen


def kind_of(label: str) -> str:
    for kind, pattern in KINDS:
        if re.search(pattern, label.replace("\0", " ")):
            return kind
    return "other"


def measure(command: list[str], interval: float = 1.0) -> dict:
    """Run `command` to its end, sampling; CPU seconds by kind, the machine's total and the wall time."""
    by_kind, by_line = Counter(), Counter()
    last = {pid: cpu for pid, (cpu, _) in snapshot().items()}      # what ran before the command is not its
    start_cpu, start = machine_cpu_s(), time.monotonic()
    child = subprocess.Popen(command)
    while True:
        ended = child.poll() is not None
        for pid, (cpu, label) in snapshot().items():
            spent = cpu - last.get(pid, 0.0)
            last[pid] = cpu
            if spent > 0 and pid[0] != os.getpid():
                by_kind[kind_of(label)] += spent
                by_line[label.replace("\0", " | ")[:160]] += spent
        if ended:
            break
        time.sleep(interval)
    return {"command": command, "returncode": child.returncode, "wall_s": time.monotonic() - start,
            "machine_cpu_s": machine_cpu_s() - start_cpu, "by_kind": dict(by_kind.most_common()),
            "top_lines": dict(by_line.most_common(40))}


def table(result: dict) -> str:
    seen = sum(result["by_kind"].values())
    rows = [f"| {kind} | {s:,.0f} | {100 * s / result['machine_cpu_s']:.1f} % |"
            for kind, s in result["by_kind"].items()]
    rows.append(f"| not seen (processes shorter than a sample, last samples, other work) | "
                f"{result['machine_cpu_s'] - seen:,.0f} | {100 * (1 - seen / result['machine_cpu_s']):.1f} % |")
    return "\n".join([f"`{' '.join(result['command'])}`: exit {result['returncode']}, wall {result['wall_s']:,.0f} s, "
                      f"machine CPU {result['machine_cpu_s']:,.0f} s ({os.cpu_count()} cores)", "",
                      "| process kind | CPU-s | share of the machine's CPU |", "|---|---:|---:|", *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the totals and the costliest command lines here")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("command", nargs="+", help="the command to run, after --")
    args = parser.parse_args(argv)
    result = measure(args.command, args.interval)
    print(table(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return result["returncode"]


if __name__ == "__main__":
    sys.exit(main())
