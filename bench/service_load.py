"""Load on the course service (``grade serve``): many learners checking at once, and a deadline's hand-ins.

    python bench/service_load.py                     # full: about 10 minutes (see bench/README.md)
    python bench/service_load.py --quick             # about 3 minutes: every phase shortened
    python bench/service_load.py --skip local --out bench/out/service-load.json

A real service on a free loopback port, started as a course starts it: ``grade serve --lessons exercises
--database OUT/service.sqlite --port P --jobs J`` in a subprocess (uvicorn, its grading processes, their
zygotes and the bubblewrap sandbox), the course secret in ``GRADER_COURSE_SECRET``, each learner's token issued
as ``grade serve token LEARNER decode`` issues it (:func:`grader.service.tokens.issue`). The learners are threads
of this process, each sending what the learner's client sends (``POST /api/v1/check`` with the cells a
notebook's code cells give, as ``grade NOTEBOOK --service`` sends them; ``POST /api/v1/submit`` with the
notebook and an ``Idempotency-Key``), over a new connection each time as ``urllib`` does. Every answer's status
is counted; a latency is the wall time of one request, sent to answered. The phases:

1. ``concurrent``: after a warm-up (each grading process loads the lesson), ``--concurrent`` checks (10) one after
   another, each by a learner of its own (the service's latency with no queue, and its CPU a check); then
   ``--concurrent`` learners check ``--question`` (``generate``) at once, on a right notebook's cells, in
   ``--rounds`` rounds (20; quick 5), one round every ``ServiceLimits.check_every`` seconds (6 s: their rate).
   p50 and p99 of the latencies, against the issue's goal (p50 <= 150 ms, p99 <= 500 ms).
2. ``local``: the same cells without the service, side by side: ``check("generate")`` warm in a live kernel
   (``bench/selfcheck_kernel.py``, in-kernel time), ``grade NOTEBOOK --json`` cold (``GRADER_DAEMON=off``) and
   answered by the warm daemon (``bench/run.py``'s ``warm_daemon``), ``--repeats`` times each (5).
3. ``load``: ``--learners`` learners (100), each with their own generated Decode notebook (``bench/generate.py``,
   the seeded mix of right, partly wrong, untouched and one slow notebook), checking every ``--every`` seconds
   (10; each from a random phase, one question after another) for ``--duration`` seconds (300; quick 30); in the
   last ``--burst-seconds`` (10) of it, ``--burst`` hand-ins (100), evenly spread ("at the deadline"). A learner
   waits for each answer before the next check and, told 429 or 503, checks again at its next turn (as a
   learner reading "try again in 5 s" does). Throughput (answered checks per second), p50 / p99, the count of
   every answer by status (0: no answer at all), peak memory and CPU seconds per check.

Memory: the largest sampled sum of RSS over the service's whole process tree (uvicorn's process, its grading
processes, their zygotes and workers), every 0.1 s (``measure.tree_rss``). CPU: user + system seconds of that
tree, the reaped children of each of its processes included, over the phase (until its last answer), divided by
the checks answered (the hand-ins' own CPU is in it: they are stored, not graded; a window that ends earlier
would count the CPU of checks still in flight and not the checks). The load generator (this process) runs on the same
cores: its own CPU seconds are printed beside it. ``os.getloadavg()`` is recorded at the start and the end.

Prints a compact table; ``--out FILE`` writes every figure and raw latency as JSON (default
``bench/out/service-load.json``). RESULTS.md is not touched: paste the table into a round, with the load.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import measure  # noqa: E402

LESSON = "decode"
SECRET = "bench-service-load-course-secret-0123456789"
GOAL_P50_S, GOAL_P99_S = 0.150, 0.500
SAMPLE_S = 0.1
NO_ANSWER = 0
"""The status counted for a request nothing answered (refused, reset, timed out)."""


# -- figures ----------------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by the nearest-rank rule: the smallest value with at least ``q`` % of the
    values at or below it (so p99 of 200 latencies is the 198th smallest, a latency someone really waited)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(latencies: Sequence[float]) -> dict[str, float]:
    """Count, p50, p99, mean and max of some latencies (seconds)."""
    return {
        "n": len(latencies),
        "p50_s": percentile(latencies, 50),
        "p99_s": percentile(latencies, 99),
        "mean_s": statistics.fmean(latencies) if latencies else math.nan,
        "max_s": max(latencies) if latencies else math.nan,
    }


def check_times(learners: int, every: float, duration: float, seed: int) -> list[list[float]]:
    """When each learner means to check, in seconds from the start: from a random phase in ``[0, every)``, every
    ``every`` seconds while before ``duration``."""
    rng = random.Random(seed)
    times = []
    for _ in range(learners):
        first = rng.uniform(0, every)
        times.append([first + k * every for k in range(math.ceil((duration - first) / every))])
    return times


def burst_times(count: int, duration: float, seconds: float) -> list[float]:
    """When each of ``count`` hand-ins is sent: evenly over the last ``seconds`` before ``duration``."""
    return [duration - seconds + i * seconds / count for i in range(count)]


# -- the service under load --------------------------------------------------------------------------------------


@dataclass
class Tally:
    """Every answer of one phase, by kind (check, submit): the latencies of those answered 200 or 201, and the
    count of each status. Threads add to it under its lock."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, Counter[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int, seconds: float) -> None:
        with self.lock:
            self.statuses.setdefault(kind, Counter())[status] += 1
            if status in (200, 201):
                self.latencies.setdefault(kind, []).append(seconds)

    def of(self, kind: str) -> dict[str, Any]:
        return {
            **summary(self.latencies.get(kind, [])),
            "statuses": {str(k): v for k, v in sorted(self.statuses.get(kind, Counter()).items())},
        }


def post(url: str, token: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, float]:
    """Send ``body`` as the learner's client does (``grader.service.client``: urllib, a new connection); the
    status (``NO_ANSWER`` when nothing answered) and the seconds from sending to the whole answer read."""
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Authorization": f"Bearer {token}",
            **(headers or {}),
        },
    )
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=180) as answer:
            answer.read()
            status = answer.status
    except urllib.error.HTTPError as err:
        err.read()
        status = err.code
    except OSError:
        status = NO_ANSWER
    return status, time.perf_counter() - start


class RunningService:
    """``grade serve`` on a free loopback port, its process tree's memory sampled until it stops."""

    def __init__(self, out: Path, jobs: int, roster: Path) -> None:
        import run  # grade as bench/run.py runs it: beside this interpreter

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        self.base = f"http://127.0.0.1:{port}"
        database = out / "service.sqlite"
        for leftover in out.glob("service.sqlite*"):
            leftover.unlink()
        command = [
            run.GRADE,
            "serve",
            "--lessons",
            str(REPO / "exercises"),
            "--database",
            str(database),
            "--port",
            str(port),
            "--jobs",
            str(jobs),
            "--roster",
            str(roster),
        ]
        env = {**os.environ, "GRADER_COURSE_SECRET": SECRET}
        self.log = (out / "service.log").open("w")
        self.process = psutil.Popen(command, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        self.peak_rss = 0
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak_rss = max(self.peak_rss, measure.tree_rss(self.process))
            self._stop.wait(SAMPLE_S)

    def wait_up(self, within: float = 180) -> None:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"bench: grade serve exited {self.process.returncode}; see {self.log.name}")
            try:
                with urllib.request.urlopen(self.base + "/api/v1/health", timeout=2) as answer:
                    if answer.status == 200:
                        self._sampler.start()
                        return
            except OSError:
                time.sleep(0.2)
        raise SystemExit(f"bench: grade serve did not answer /health within {within:.0f} s")

    def reset_peak(self) -> None:
        self.peak_rss = measure.tree_rss(self.process)

    def cpu(self) -> float:
        return measure.tree_cpu(self.process)

    def stop(self) -> None:
        self._stop.set()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # uvicorn's graceful stop, then the pool's
            try:
                self.process.wait(60)
            except psutil.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        self.log.close()


@contextmanager
def running_service(out: Path, jobs: int, roster: Path) -> Iterator[RunningService]:
    service = RunningService(out, jobs, roster)
    try:
        service.wait_up()
        yield service
    finally:
        service.stop()


def page_identity() -> str:
    """An identity whose drawn numbers are the lesson page's (the generated notebooks' answers are worked on
    those): the roster gives it to every learner of the run, so a right answer is right on the learner's own
    numbers, as in a course whose notebooks were released to each learner with their own, and only a wrong one
    costs the other-numbers rerun (``grader.params.other_numbers``)."""
    from grader.lessons import load_lesson
    from grader.params import default_params, draw

    lesson = load_lesson(LESSON, REPO / "exercises")
    return next(
        f"page-numbers-{k}"
        for k in range(100_000)
        if draw(lesson, f"page-numbers-{k}", SECRET.encode()) == default_params(lesson)
    )


def write_roster(path: Path, learners: Sequence[str]) -> Path:
    """``learner,identity``: each learner of the run, all on the page's numbers (:func:`page_identity`)."""
    identity = page_identity()
    path.write_text("learner,identity\n" + "".join(f"{x},{identity}\n" for x in learners), encoding="utf-8")
    return path


def token(learner: str) -> str:
    """``learner``'s token for the lesson, as ``grade serve token LEARNER decode`` prints it."""
    from grader.service.tokens import issue

    return issue(SECRET.encode(), learner, LESSON)


def cells_of(path: Path) -> list[str]:
    """The cells ``grade NOTEBOOK --service`` sends for ``path`` (its code cells, self-check cells left out)."""
    from grader.read import parse_submission, read_notebook_bytes

    return [c.source for c in parse_submission(read_notebook_bytes(path), path).cells if not c.skip]


def check(base: str, tally: Tally, learner: str, cells: list[str], question: str, kind: str = "check") -> int:
    body = {"lesson": LESSON, "questions": [question] if question else [], "cells": cells}
    status, seconds = post(base + "/api/v1/check", token(learner), body)
    tally.add(kind, status, seconds)
    return status


def at_once(calls: Sequence[Any]) -> None:
    """Run each of ``calls`` in its own thread, all released together; return when all are done."""
    gate = threading.Barrier(len(calls))

    def go(call: Any) -> None:
        gate.wait()
        call()

    threads = [threading.Thread(target=go, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def warm_up_ids(jobs: int) -> list[list[str]]:
    """The warm-up's learners: three rounds of two per grading process."""
    return [[f"warmup{r}-{i}" for i in range(2 * jobs)] for r in range(3)]


def together_ids(learners: int) -> list[str]:
    return [f"together{i:02d}" for i in range(learners)]


def alone_ids(checks: int) -> list[str]:
    return [f"alone{i:02d}" for i in range(checks)]


def alone_phase(service: RunningService, checks: int, cells: list[str], question: str) -> dict[str, Any]:
    """``checks`` checks one after another, nothing else in the service: its latency with no queue."""
    tally = Tally()
    cpu0 = service.cpu()
    for who in alone_ids(checks):
        check(service.base, tally, who, cells, question)
    result = tally.of("check")
    result.update(
        cpu_per_check_s=(service.cpu() - cpu0) / max(1, result["n"]), latencies_s=tally.latencies.get("check", [])
    )
    return result


def warm_up(service: RunningService, jobs: int, cells: list[str], question: str) -> dict[str, Any]:
    """Checks not counted, so that each grading process has loaded the lesson and warmed its zygote."""
    tally = Tally()
    for names in warm_up_ids(jobs):
        at_once([lambda who=who: check(service.base, tally, who, cells, question) for who in names])
    return tally.of("check")


def concurrent_phase(
    service: RunningService, learners: int, rounds: int, period: float, cells: list[str], question: str
) -> dict[str, Any]:
    """``learners`` checks at once, ``rounds`` times, a round at most every ``period`` seconds."""
    tally = Tally()
    service.reset_peak()
    cpu0, start = service.cpu(), time.perf_counter()
    for r in range(rounds):
        began = time.perf_counter()
        at_once([lambda who=who: check(service.base, tally, who, cells, question) for who in together_ids(learners)])
        if r < rounds - 1:
            time.sleep(max(0.0, period - (time.perf_counter() - began)))
    wall, cpu = time.perf_counter() - start, service.cpu() - cpu0
    result = tally.of("check")
    result.update(
        learners=learners,
        rounds=rounds,
        wall_s=wall,
        cpu_per_check_s=cpu / max(1, result["n"]),
        peak_rss_mib=service.peak_rss / 2**20,
        latencies_s=tally.latencies.get("check", []),
    )
    return result


def load_phase(service: RunningService, notebooks: list[Path], args: argparse.Namespace) -> dict[str, Any]:
    """Learners checking every ``args.every`` s for ``args.duration`` s, and the hand-ins in its last seconds."""
    from grader.lessons import load_lesson

    questions = [q.id for q in load_lesson(LESSON, REPO / "exercises").questions]
    plans = check_times(len(notebooks), args.every, args.duration, args.seed)
    hand_ins = burst_times(args.burst, args.duration, args.burst_seconds)
    tally = Tally()
    mine0 = resource.getrusage(resource.RUSAGE_SELF)
    service.reset_peak()
    start = time.perf_counter()
    cpu_marks: dict[str, float] = {"start": service.cpu()}

    def sleep_until(offset: float) -> None:
        time.sleep(max(0.0, start + offset - time.perf_counter()))

    def learner(index: int, path: Path) -> None:
        cells, rng = cells_of(path), random.Random(args.seed * 1000 + index)
        first = rng.randrange(len(questions))
        for k, when in enumerate(plans[index]):
            if time.perf_counter() - start > when:
                continue  # the previous answer came after this turn: the learner checks at the next one
            sleep_until(when)
            check(service.base, tally, path.stem, cells, questions[(first + k) % len(questions)])

    def hand_in(index: int, path: Path, when: float) -> None:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        sleep_until(when)
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        status, seconds = post(
            service.base + "/api/v1/submit", token(path.stem), {"lesson": LESSON, "notebook": notebook}, headers
        )
        tally.add("submit", status, seconds)

    threads = [threading.Thread(target=learner, args=(i, p)) for i, p in enumerate(notebooks)]
    threads += [
        threading.Thread(target=hand_in, args=(i, notebooks[i % len(notebooks)], when))
        for i, when in enumerate(hand_ins)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    cpu_marks["end"] = service.cpu()
    mine1 = resource.getrusage(resource.RUSAGE_SELF)
    checks = tally.of("check")
    sent = sum(checks["statuses"].values())
    checks.update(
        sent=sent,
        throughput_per_s=checks["n"] / wall,
        offered_per_s=sent / wall,
        cpu_per_check_s=(cpu_marks["end"] - cpu_marks["start"]) / max(1, checks["n"]),
        latencies_s=tally.latencies.get("check", []),
    )
    return {
        "learners": len(notebooks),
        "every_s": args.every,
        "duration_s": args.duration,
        "wall_s": wall,
        "checks": checks,
        "submits": {**tally.of("submit"), "count": args.burst, "within_s": args.burst_seconds},
        "service_cpu_s": cpu_marks["end"] - cpu_marks["start"],
        "load_generator_cpu_s": (mine1.ru_utime - mine0.ru_utime) + (mine1.ru_stime - mine0.ru_stime),
        "peak_rss_mib": service.peak_rss / 2**20,
    }


# -- the same cells without the service ---------------------------------------------------------------------------


def local_phase(notebook: Path, out: Path, repeats: int) -> dict[str, Any]:
    """``check("generate")`` warm in a kernel; ``grade NOTEBOOK`` cold and warm (``bench/run.py``'s ways)."""
    import run  # sets GRADER_DAEMON=off for this process: every `grade` below is cold but the daemon's

    result: dict[str, Any] = {}
    selfcheck = measure.run([sys.executable, str(HERE / "selfcheck_kernel.py"), "--warm", str(max(repeats, 5))])
    if selfcheck.returncode == 0:
        found = json.loads(selfcheck.stdout)
        result["selfcheck_warm_s"] = summary(found["warm_s"])
    else:
        result["selfcheck_error"] = selfcheck.stderr[-2000:]
    command = [run.GRADE, str(notebook), "--json"]
    result["grade_cold_s"] = summary([measure.run(command).wall for _ in range(repeats)])
    with run.warm_daemon(notebook.parent) as env:
        result["grade_warm_s"] = summary([measure.run(command, env=env).wall for _ in range(repeats)])
    return result


# -- the report ---------------------------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return "n/a" if math.isnan(seconds) else f"{seconds * 1000:.0f} ms"


def _statuses(counts: dict[str, int]) -> str:
    return ", ".join(f"{'no answer' if k == str(NO_ANSWER) else k}: {v}" for k, v in counts.items()) or "none"


def table(r: dict[str, Any]) -> str:
    """The figures as a Markdown table, and the lines that say under what load they were taken."""
    lines = [
        "| measurement | n | p50 | p99 | other |",
        "|---|---|---|---|---|",
    ]
    a = r.get("alone")
    if a:
        lines.append(
            f'| service: `check("{r["options"]["question"]}")`, one at a time (no queue) | {a["n"]} | '
            f"{_ms(a['p50_s'])} | {_ms(a['p99_s'])} | CPU {_ms(a['cpu_per_check_s'])} a check; answers "
            f"{_statuses(a['statuses'])} |"
        )
    c = r.get("concurrent")
    if c:
        met = c["p50_s"] <= GOAL_P50_S and c["p99_s"] <= GOAL_P99_S
        lines.append(
            f'| service: `check("{r["options"]["question"]}")`, {c["learners"]} learners at once, '
            f"{c['rounds']} rounds | {c['n']} | {_ms(c['p50_s'])} | {_ms(c['p99_s'])} | goal p50 <= 150 ms, "
            f"p99 <= 500 ms: {'met' if met else '**not met**'}; CPU {_ms(c['cpu_per_check_s'])} a check; "
            f"answers {_statuses(c['statuses'])} |"
        )
    loc = r.get("local")
    if loc:
        if "selfcheck_warm_s" in loc:
            s = loc["selfcheck_warm_s"]
            lines.append(
                f"| local: self-check in the kernel, warm | {s['n']} | {_ms(s['p50_s'])} | | max {_ms(s['max_s'])} |"
            )
        for key, label in (("grade_cold_s", "cold (`GRADER_DAEMON=off`)"), ("grade_warm_s", "warm (the daemon)")):
            s = loc[key]
            lines.append(
                f"| local: `grade NOTEBOOK` {label} | {s['n']} | {_ms(s['p50_s'])} | | max {_ms(s['max_s'])} |"
            )
    ld = r.get("load")
    if ld:
        ch, sb = ld["checks"], ld["submits"]
        lines.append(
            f"| service: {ld['learners']} learners, a check every {ld['every_s']:g} s for {ld['duration_s']:g} s | "
            f"{ch['n']} of {ch['sent']} | {_ms(ch['p50_s'])} | {_ms(ch['p99_s'])} | {ch['throughput_per_s']:.1f} "
            f"answered/s of {ch['offered_per_s']:.1f} sent/s; CPU {_ms(ch['cpu_per_check_s'])} a check (hand-ins "
            f"included); answers "
            f"{_statuses(ch['statuses'])} |"
        )
        lines.append(
            f"| service: {sb['count']} hand-ins in the last {sb['within_s']:g} s | {sb['n']} | {_ms(sb['p50_s'])} | "
            f"{_ms(sb['p99_s'])} | answers {_statuses(sb['statuses'])} |"
        )
        lines.append(
            f"| service: peak memory (RSS summed over its tree) | | | | {ld['peak_rss_mib']:.0f} MiB; service CPU "
            f"{ld['service_cpu_s']:.0f} s, load generator's {ld['load_generator_cpu_s']:.0f} s |"
        )
    start, end = r["load_average"]
    lines += [
        "",
        f"Load average (1, 5, 15 min) at start: {start}; at end: {end}. `--jobs {r['options']['jobs']}`, "
        f"{r['machine']['cores']} cores ({r['machine']['cpu']}), commit {r['machine']['commit']}.",
    ]
    return "\n".join(lines)


def options(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 rounds, 30 s of load, 3 repeats (about 3 minutes)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="grade serve --jobs (default: cores)")
    parser.add_argument("--question", default="generate", help="what the concurrent learners check")
    parser.add_argument("--concurrent", type=int, default=10, help="learners checking at once (default 10)")
    parser.add_argument("--rounds", type=int, help="rounds of concurrent checks (default 20; quick 5)")
    parser.add_argument("--learners", type=int, default=100, help="learners of the load phase (default 100)")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between a learner's checks (default 10)")
    parser.add_argument("--duration", type=float, help="seconds of the load phase (default 300; quick 30)")
    parser.add_argument("--burst", type=int, default=100, help="hand-ins at the end of the load phase (default 100)")
    parser.add_argument("--burst-seconds", type=float, default=10.0, help="... sent within this (default 10)")
    parser.add_argument("--repeats", type=int, help="runs of each local measurement (default 5; quick 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip", default="", help="comma-separated phases to skip: concurrent,local,load")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "service-load.json", help="the JSON to write")
    args = parser.parse_args(argv)
    args.rounds = args.rounds or (5 if args.quick else 20)
    args.duration = args.duration or (30.0 if args.quick else 300.0)
    args.repeats = args.repeats or (3 if args.quick else 5)
    args.skip = {x for x in args.skip.split(",") if x}
    if args.burst_seconds > args.duration:
        parser.error("--burst-seconds must be at most --duration")
    return args


def main(argv: list[str] | None = None) -> None:
    args = options(argv)
    from grader.config import DEFAULT_SERVICE_LIMITS

    work = args.out.parent / "service-load"
    work.mkdir(parents=True, exist_ok=True)
    learners = generate.generate(args.learners, work / "learners", seed=args.seed)
    notebooks = [work / "learners" / f"{x.id}.ipynb" for x in learners]
    right = next((p for x, p in zip(learners, notebooks, strict=True) if x.kind == "correct"), None)
    if right is None:
        raise SystemExit(f"bench: {args.learners} learners of seed {args.seed} have no right notebook: ask for more")
    cells = cells_of(right)
    results: dict[str, Any] = {
        "machine": _machine(),
        "options": {
            k: (sorted(v) if isinstance(v, set) else str(v) if isinstance(v, Path) else v)
            for k, v in vars(args).items()
        },
        "limits": dataclasses.asdict(DEFAULT_SERVICE_LIMITS),
    }
    start_load = measure.load_average()
    print(f"[service-load] load average at start: {start_load}", flush=True)
    if not {"concurrent", "load"} <= args.skip:
        ids = (
            [x.id for x in learners]
            + together_ids(args.concurrent)
            + alone_ids(args.concurrent)
            + sum(warm_up_ids(args.jobs), [])
        )
        with running_service(work, args.jobs, write_roster(work / "roster.csv", ids)) as service:
            results["warm_up"] = warm_up(service, args.jobs, cells, args.question)
            results["idle_rss_mib"] = measure.tree_rss(service.process) / 2**20
            if "concurrent" not in args.skip:
                results["alone"] = alone_phase(service, args.concurrent, cells, args.question)
                print(f"[service-load] {args.concurrent} learners at once, {args.rounds} rounds", flush=True)
                results["concurrent"] = concurrent_phase(
                    service, args.concurrent, args.rounds, DEFAULT_SERVICE_LIMITS.check_every, cells, args.question
                )
            if "load" not in args.skip:
                print(f"[service-load] {args.learners} learners for {args.duration:g} s", flush=True)
                results["load"] = load_phase(service, notebooks, args)
    if "local" not in args.skip:
        print("[service-load] the same cells without the service", flush=True)
        results["local"] = local_phase(right, work, args.repeats)
    results["load_average"] = [start_load, measure.load_average()]
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(table(results))
    print(f"\nwrote {args.out}")


def _machine() -> dict[str, Any]:
    import run  # noqa: F401  (its machine() reads the CPU, cores and commit as the main bench does)

    return run.machine()


if __name__ == "__main__":
    main()
