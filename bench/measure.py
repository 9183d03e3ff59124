"""Run a command and measure it: wall time, CPU time of the whole process tree, and peak memory.

Peak memory is the largest sum of resident set sizes (RSS) over the command's whole process tree (the
command and every descendant alive at that moment), sampled with psutil every ``SAMPLE_S`` seconds. Pages
shared between processes (a forked worker's, a library's) are counted once per process, so it is an
upper bound on the memory the tree really held; a peak shorter than one sampling interval can be missed.
(``getrusage(RUSAGE_CHILDREN).ru_maxrss`` is not used: it is the largest single process, never reset
between commands of one bench run.)
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

SAMPLE_S = 0.05


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    """User + system seconds of the command and all its (waited-for) descendants."""
    peak_rss: int
    """Bytes: the largest sampled sum of RSS over the process tree."""
    returncode: int
    stdout: str = ""
    stderr: str = ""
    machine_cpu: float = 0.0
    """User + system seconds of every process on the machine while the command ran (``/proc/stat``): unlike
    ``cpu``, it counts processes the command's tree never waits for (a sandbox's workers, killed in their own pid
    namespace, are out of ``RUSAGE_CHILDREN``'s reach), and whatever else runs: take it on a quiet machine."""


def tree_total(proc: psutil.Process, value: Callable[[psutil.Process], float]) -> float:
    """The sum of ``value`` over ``proc`` and every descendant alive now (a process gone meanwhile counts 0)."""
    total = 0.0
    try:
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0
    for p in procs:
        try:
            total += value(p)
        except psutil.Error:
            continue
    return total


def tree_rss(proc: psutil.Process) -> int:
    return int(tree_total(proc, lambda p: p.memory_info().rss))


def _cpu(p: psutil.Process) -> float:
    t = p.cpu_times()
    return float(t.user + t.system + t.children_user + t.children_system)


def tree_cpu(proc: psutil.Process) -> float:
    """User + system seconds of the process tree, with the children each of its processes has reaped (a forked
    worker's, once its parent waited for it)."""
    return tree_total(proc, _cpu)


def run(cmd: Sequence[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 3600) -> Run:
    """Run ``cmd`` to completion, sampling its process tree's memory in a thread."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    machine_before = machine_cpu_s()
    start = time.perf_counter()
    proc = psutil.Popen(list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], tree_rss(proc))
            done.wait(SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        done.set()
        sampler.join()
        if proc.poll() is None:  # a timeout: end what we started, and only that
            proc.kill()
            proc.wait()
    wall = time.perf_counter() - start
    machine = machine_cpu_s() - machine_before
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, peak[0], proc.returncode, out, err, machine)


def machine_cpu_s() -> float:
    """Seconds of CPU every process of the machine has used since boot (user, nice, system, irq, softirq), from
    ``/proc/stat``; 0 where there is none."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq = (int(f) for f in fields)
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


@dataclass
class Series:
    """Several runs of one measurement; min / median / max of each quantity."""

    name: str
    runs: list[Run] = field(default_factory=list)
    per: int = 1
    """How many notebooks one run graded (for per-notebook figures)."""

    def stat(self, attr: str) -> tuple[float, float, float]:
        values = [float(getattr(r, attr)) for r in self.runs]
        return min(values), statistics.median(values), max(values)

    @property
    def wall(self) -> tuple[float, float, float]:
        return self.stat("wall")

    @property
    def median_wall(self) -> float:
        return self.wall[1]

    @property
    def per_notebook(self) -> tuple[float, float, float]:
        lo, mid, hi = self.wall
        return lo / self.per, mid / self.per, hi / self.per


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"
