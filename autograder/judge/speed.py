"""Speed, measured by the grader: a learner's engine against the course's reference engine at the same
milestone (issue 38; docs/SERVING.md, "Speed").

Each timed run is its own sandboxed child of the grading pool, confined like the graded run: the
learner's run executes the learner's cells and drives their engine through one workload; the reference
run executes only the reference cells (`SpeedSpec.reference_cells`, no learner code) through the same
workload. The time is the child's CPU seconds, which the worker reads from the kernel (wait4) after the
child ends: nothing in the learner's process (a patched clock, harness or reference) can change it, and
the reference is out of its reach. Runs are interleaved, learner and reference in alternating order,
each pair on a fresh workload drawn from the instructor's secret (so nothing can be memoized across
repeats: every run is a fresh process and every pair new requests), and every learner run's tokens are
judged against the trusted reference like a graded case. The ratio is reference seconds / learner
seconds per pair (above 1: faster than the reference), and the verdict takes the median over pairs.
When the pairs' spread (interquartile range / median) exceeds `spread_limit`, the run is measured again
(up to `max_rounds` rounds, all pairs kept).

Noise may delay a verdict, never decide it (issue 51): a median at or above the floor passes; a median
under the floor fails when the run is steady, or when even its upper quartile (the pairs most favourable
to the learner) is under the floor, or when it is under half the floor, however the pairs scatter. Only
a noisy run whose median is under the floor while its upper quartile reaches it is undecidable: it fails
with a reason that says so, and a flag tells the instructor to grade it again on a quieter machine.
Before, a noisy run passed whatever its median: a slow engine whose timings scattered scored full marks
at 0.02x the reference.
"""
from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from typing import Any, Callable

from autograder.judge.secrets import case_seed
from autograder.judge.verdict import failure_reason
from autograder.sandbox import nofork
from autograder.sandbox.protocol import NOFORK_MISSING
from autograder.spec import Case, LabSpec


# A timed run is killed (SIGSYS, read from the kernel) when its code starts a process (sandbox/nofork.py)
PROCESS_STARTED = ("started a process while timed (fork, vfork, clone or a subprocess): the grader counts the "
                   "CPU seconds of the timed process and its threads only, so a timed run may not start another")


@dataclass(frozen=True)
class SpeedSpec:
    milestones: dict                          # grade_id -> the argument the timed case is drawn for
    workload: Callable[[random.Random, Any], Case]   # one timed case (plain data), drawn per pair
    reference_cells: str                      # source defining the task's function with the course's engine
    pairs: int = 3
    max_rounds: int = 3
    spread_limit: float = 0.25                # IQR / median of the per-pair ratios that is still judged
    floor: float = 0.25                       # a passing task's median ratio must reach this
    # a learner's timed run is stopped after wall_factor x the longest reference run so far + wall_extra_s:
    # CPU seconds are the verdict, so an engine that sleeps would otherwise hold a worker to the wall limit
    wall_factor: float = 4.0
    wall_extra_s: float = 15.0


def spread(ratios: list[float]) -> float:
    """Interquartile range over median (0 for fewer than two pairs)."""
    if len(ratios) < 2:
        return 0.0
    q = statistics.quantiles(ratios, n=4, method="inclusive")
    return (q[2] - q[0]) / statistics.median(ratios)


def measure(pool, notebook, spec: LabSpec, cells, secret: bytes, draw: str, passed: set[str]) -> dict:
    """grade_id -> {"ratio", "pairs", "spread", "rounds", "noisy", "learner_s", "reference_s" (median CPU s),
    "learner_wall_s", "reference_wall_s" (the longest run's wall clock)} or {"error"}."""
    from autograder.judge.reference import reference_output

    speed: SpeedSpec = spec.speed
    out = {}
    for grade_id, milestone in speed.milestones.items():
        if grade_id not in passed:
            continue
        task = spec.task(grade_id)
        ratios, mine, theirs, rounds, error, walls, learner_walls = [], [], [], 0, None, [0.0], []
        while rounds < speed.max_rounds and error is None:
            rounds += 1
            for i in range(speed.pairs):
                seed = case_seed(secret, spec.lab_id, f"{grade_id}/speed", rounds * 1000 + i, draw)
                case = speed.workload(random.Random(seed), milestone)
                want = reference_output(spec, task, case)
                # alternating, the reference first in even pairs: the first run bounds the learner's wall clock
                order = ("reference", "learner") if i % 2 == 0 else ("learner", "reference")
                seconds = {}
                for who in order:
                    bound = wall_bound(speed, max(walls)) if who == "learner" else None
                    value, cpu_s, wall_s, problem = _timed(pool, notebook, spec, task,
                                                           cells if who == "learner" else None, case, bound)
                    if problem is None:
                        (walls if who == "reference" else learner_walls).append(wall_s)
                    if problem or (who == "learner" and task.compare(value, want)):
                        error = problem or f"wrong output while timed: {task.compare(value, want)}"
                        if who == "reference":
                            error = f"the reference engine failed while timed: {error}"
                        break
                    seconds[who] = cpu_s
                if error:
                    break
                mine.append(seconds["learner"])
                theirs.append(seconds["reference"])
                ratios.append(seconds["reference"] / max(seconds["learner"], 1e-9))
            if error is None and spread(ratios) <= speed.spread_limit:
                break
        if error:
            out[grade_id] = {"error": error[:300]}
            continue
        out[grade_id] = {"ratio": round(statistics.median(ratios), 4), "pairs": [round(r, 4) for r in ratios],
                         "spread": round(spread(ratios), 4), "rounds": rounds,
                         "noisy": spread(ratios) > speed.spread_limit,
                         "learner_s": round(statistics.median(mine), 4),
                         "reference_s": round(statistics.median(theirs), 4),
                         "learner_wall_s": round(max(learner_walls), 3), "reference_wall_s": round(max(walls), 3)}
    return out


def wall_bound(speed: SpeedSpec, reference_wall_s: float) -> float:
    """A learner's timed run may take this long on the wall clock, given the longest reference run so far."""
    return speed.wall_factor * reference_wall_s + speed.wall_extra_s


def _timed(pool, notebook, spec: LabSpec, task, cells, case: Case,
           wall_s: float | None = None) -> tuple[Any, float, float, str | None]:
    """(encoded output, the child's CPU seconds, its wall-clock seconds, a problem or None): one run,
    learner's cells or, with cells None, the reference cells and no stand-ins (no learner code runs
    there); stopped after `wall_s` when given (and the pool's own wall-clock limit is longer)."""

    entry = [{"grade_id": task.grade_id, "at": float("inf"),
              "cases": [{"name": case.name, "args": list(case.args), "kwargs": case.kwargs}]}]
    reference = cells is None
    run_cells = [(0, spec.speed.reference_cells)] if reference else cells
    job = dict(pool.job(notebook, spec, run_cells, entry, standins_off=reference), timed=True)
    report, reply = pool.dispatch(job, spec, notebook, wall_s)
    if reply.get("signal") == nofork.KILLED_BY:
        return None, 0.0, 0.0, PROCESS_STARTED
    missing = [line for line in str(reply.get("streamed_flags", "")).splitlines() if line.startswith(NOFORK_MISSING)]
    if missing:
        return None, 0.0, 0.0, f"the grader cannot time runs here: {missing[0][:200]}"
    if reply.get("timed_out") and reply.get("wall_bound_s") is not None:
        return None, 0.0, 0.0, (f"too slow: still running after {reply['wall_bound_s']:.1f} s of wall-clock time, "
                                f"{spec.speed.wall_factor:g} times the reference run's plus "
                                f"{spec.speed.wall_extra_s:g} s (a timed run that waits is stopped there)")
    reason = failure_reason(reply, pool.limits)
    if reason:
        return None, 0.0, 0.0, reason
    try:
        got = report["tasks"][task.grade_id]["outputs"][0]
    except (KeyError, IndexError, TypeError):
        return None, 0.0, 0.0, "the timed run reported no output"
    if not isinstance(got, dict) or "value" not in got:
        return (None, 0.0, 0.0,
                f"the timed run raised {str(got.get('error') if isinstance(got, dict) else got)[:200]}")
    return got["value"], float(reply.get("cpu_s", 0.0)), float(reply.get("wall_s", 0.0)), None


def verdict(measured: dict, speed: SpeedSpec) -> str:
    """"pass", "fail" or "undecidable" for one task's measurement (see the module's docstring)."""
    ratios, median = measured["pairs"], measured["ratio"]
    if median >= speed.floor:
        return "pass"
    upper = statistics.quantiles(ratios, n=4, method="inclusive")[2] if len(ratios) >= 2 else median
    if not measured["noisy"] or upper < speed.floor or median < speed.floor / 2:
        return "fail"
    return "undecidable"


def judged(results: dict, speed: SpeedSpec) -> dict[str, str]:
    """grade_id -> why the task fails on speed (an error while timed, a median under the floor, or a run
    too noisy to tell)."""
    verdicts = {}
    for grade_id, measured in results.items():
        if "error" in measured:
            verdicts[grade_id] = f"speed run failed: {measured['error']}"
            continue
        said = verdict(measured, speed)
        pairs = f"median of {len(measured['pairs'])} timed pairs"
        if said == "fail":
            verdicts[grade_id] = (f"too slow: {measured['ratio']:.2f}x the reference engine's speed at this milestone "
                                  f"({pairs}; at least {speed.floor:.2f}x passes)")
        elif said == "undecidable":
            verdicts[grade_id] = (f"speed undecidable: {measured['ratio']:.2f}x the reference engine's speed ({pairs}), "
                                  f"under the {speed.floor:.2f}x floor, but the timings scattered too widely to "
                                  f"tell (spread {measured['spread']:.2f}); your instructor will time it again")
    return verdicts


def undecidable_flags(results: dict, speed: SpeedSpec) -> list[str]:
    """Flags for the instructor: tasks whose speed could not be told apart from the floor."""
    return [f"speed undecidable for {grade_id}: a noisy run ({measured['ratio']:.2f}x, spread "
            f"{measured['spread']:.2f}) under the {speed.floor:.2f}x floor; grade it again on a quieter machine"
            for grade_id, measured in results.items() if "error" not in measured and verdict(measured, speed) == "undecidable"]


def process_start_flags(results: dict) -> list[str]:
    """Flags for the instructor: tasks whose timed run started a process (work the grader would not count)."""
    return [f"fork: started a process in a timed run of {grade_id} (refused; the task fails on speed)"
            for grade_id, measured in results.items() if measured.get("error") == PROCESS_STARTED[:300]]
