"""The grading benchmark: ``grade`` side by side with ``nbgrader autograde`` on the same machine, in one run.

    python bench/run.py              # the full run (N = 40, 3 repeats, scaling to 1,000)
    python bench/run.py --quick      # a few minutes: N = 10, 1 repeat, scaling 10 and 100

See bench/README.md for what each figure means. Everything generated goes to bench/out/ (gitignored);
the figures are written to bench/out/results.json and into bench/RESULTS.md between its markers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import measure  # noqa: E402
import nbgrader_course  # noqa: E402

os.environ["GRADER_DAEMON"] = "off"  # every `grade` here is cold unless a step says otherwise (the warm daemon step)
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"
TARGETS = {
    "batch_vs_nbgrader": 50.0,  # x nbgrader autograde's throughput
    "single_wall_s": 0.5,
    "check_s": 0.1,
    "thousand_s": 30.0,
    "isolation_vs_floor": 5.0,
}


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


# -- the machine -------------------------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "unknown"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        ram = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    packages = {}
    for name in ("inference-grader", "pytest", "hypothesis", "ipython", "nbformat", "psutil", "jupyter_client", "ipykernel", "nbclient"):
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = "not installed"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    dirty = bool(subprocess.run(["git", "status", "--porcelain"], cwd=REPO, capture_output=True, text=True).stdout.strip())
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram": ram,
        "os": platform.platform(),
        "python": platform.python_version(),
        "packages": packages,
        "commit": commit + (" (with uncommitted changes)" if dirty else ""),
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


# -- helpers ---------------------------------------------------------------------------------------------------

def series(name: str, repeats: int, per: int, once: Callable[[int], measure.Run]) -> measure.Series:
    s = measure.Series(name, per=per)
    for i in range(repeats):
        run = once(i)
        if run.returncode != 0:
            raise SystemExit(f"bench: {name} failed (exit {run.returncode}):\n{run.stderr[-3000:]}")
        s.runs.append(run)
        log(
            f"  {name} #{i + 1}: {run.wall:.2f} s wall, {run.cpu:.2f} s cpu ({run.machine_cpu:.2f} s on the machine), "
            f"peak {run.peak_rss / 2**20:.0f} MiB"
        )
    return s


def summary(s: measure.Series) -> dict[str, Any]:
    return {
        "per": s.per,
        "wall_s": s.wall,
        "per_notebook_s": s.per_notebook,
        "notebooks_per_s": [s.per / w for w in s.wall[::-1]],
        "cpu_s": s.stat("cpu"),
        "machine_cpu_s": s.stat("machine_cpu"),
        "peak_rss_mib": [v / 2**20 for v in s.stat("peak_rss")],
        "runs": [{k: v for k, v in asdict(r).items() if k not in ("stdout", "stderr")} for r in s.runs],
    }


def _grade_command() -> str:
    """``grade`` as installed beside this interpreter, run directly as nbgrader is (``<venv>/bin/python -m
    nbgrader``); a version manager's shim on PATH (pyenv's adds ~0.1 s of shell scripts per call here) is not
    ours to measure. Falls back to ``grade`` on PATH."""
    beside = Path(sys.executable).parent / "grade"
    return str(beside) if beside.exists() else "grade"


GRADE = _grade_command()


def batch_available() -> bool:
    result = subprocess.run([GRADE, "batch", "--help"], capture_output=True, text=True)
    return result.returncode == 0 and "--out" in result.stdout


def grade_batch(subs: Path, out: Path, jobs: int, *extra: str) -> Callable[[int], measure.Run]:
    def once(_: int) -> measure.Run:
        shutil.rmtree(out, ignore_errors=True)  # a first run every time: no skipping of unchanged notebooks
        return measure.run([GRADE, "batch", str(subs), "--out", str(out), "--jobs", str(jobs), *extra])

    return once


def batch_scores(out: Path) -> dict[str, float]:
    scores = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        scores[row["learner"]] = float(row.get("score") or 0.0)
    return scores


def compare_scores(ours: dict[str, float], theirs: dict[str, float]) -> dict[str, Any]:
    common = sorted(set(ours) & set(theirs))
    differ = {k: (ours[k], theirs[k]) for k in common if abs(ours[k] - theirs[k]) > 1e-3}
    return {
        "compared": len(common),
        "agree": len(common) - len(differ),
        "differ": differ,
        "only_ours": sorted(set(ours) - set(theirs)),
        "only_theirs": sorted(set(theirs) - set(ours)),
    }


@contextlib.contextmanager
def warm_daemon(out: Path) -> Iterator[dict[str, str]]:
    """A private daemon folder and a started, warmed daemon; the environment that uses it. Stopped afterwards."""
    runtime = Path(tempfile.mkdtemp(prefix="bench-daemon-"))
    env = {**os.environ, "GRADER_DAEMON": "on", "XDG_RUNTIME_DIR": str(runtime), "GRADER_DAEMON_IDLE": "120"}
    folder = runtime / f"inference-grader-{os.getuid()}"
    try:
        first = measure.run([GRADE, str(next((out).rglob("learner*.ipynb"))), "--json"], env=env)  # cold; starts it
        if first.returncode != 0:
            raise SystemExit(f"bench: grade failed:\n{first.stderr[-2000:]}")
        deadline = time.monotonic() + 120
        while not any(" ready " in p.read_text() for p in folder.glob("*.log")):
            if time.monotonic() > deadline:
                raise SystemExit("bench: the grading daemon did not start")
            time.sleep(0.1)
        yield env
    finally:
        for lock in folder.glob("*.lock"):
            pid = lock.read_text().strip()
            if pid.isdigit():
                try:
                    os.kill(int(pid), signal.SIGTERM)
                except OSError:
                    pass
        shutil.rmtree(runtime, ignore_errors=True)


def python_json(args: list[str]) -> Callable[[int], measure.Run]:
    return lambda _: measure.run([sys.executable, *args])


# -- the steps -------------------------------------------------------------------------------------------------

def compile_package() -> str:
    """Byte-compile the grader package, as installing it from a wheel does (nbgrader's venv got the same from pip).

    An editable install has no bytecode until Python writes it on first import, and where
    PYTHONDONTWRITEBYTECODE is set (as on our CI machines) it never does: every process of every run would
    compile the grader from source (~0.1 s of CPU each). Returns the package's folder.
    """
    found = subprocess.run([sys.executable, "-c", "import grader, os; print(os.path.dirname(grader.__file__))"],
                           capture_output=True, text=True, check=True)
    package = found.stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], check=True, stdout=subprocess.DEVNULL)
    return package


def run(args: argparse.Namespace) -> dict[str, Any]:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    skip = set(args.skip)
    results: dict[str, Any] = {"machine": machine(), "load_average_start": measure.load_average(), "options": {
        "n": args.n, "repeats": args.repeats, "jobs": args.jobs, "scaling": args.scaling, "quick": args.quick}}
    log(f"machine: {results['machine']['cpu']}, {results['machine']['cores']} cores; load {results['load_average_start']}")
    log(f"byte-compiled {compile_package()} (as a wheel install would be)")

    subs = out / f"batch{args.n}" / "submissions"
    shutil.rmtree(subs.parent, ignore_errors=True)
    learners = generate.generate(args.n, subs, seed=args.seed)
    kinds = [x.kind for x in learners]
    results["mix"] = {k: kinds.count(k) for k in sorted(set(kinds))}
    log(f"generated {args.n} submissions in {subs}: {results['mix']}")
    one = next(x.id for x in learners if x.kind == "partial") if "partial" in kinds else learners[0].id
    one_path = subs / f"{one}.ipynb"
    has_batch = batch_available()
    if not has_batch:
        log("`grade batch` is not available yet: its rows are skipped")
        results["batch_missing"] = True

    if has_batch and "batch" not in skip:
        log(f"grade batch, N = {args.n}, --jobs {args.jobs}")
        res = out / f"batch{args.n}" / "results"
        s = series("grade batch", args.repeats, args.n, grade_batch(subs, res, args.jobs))
        results["batch"] = summary(s)
        results["batch_scores"] = batch_scores(res)

    if has_batch and "kernel" not in skip:
        log(f"grade batch --kernel (a real Jupyter kernel per notebook), N = {args.n}, --jobs {args.jobs}")
        res = out / f"batch{args.n}" / "results-kernel"
        s = series("grade batch --kernel", args.repeats, args.n, grade_batch(subs, res, args.jobs, "--kernel"))
        results["kernel_batch"] = summary(s)
        results["kernel_scores"] = batch_scores(res)

    if "single" not in skip:
        log(f"grade {one}.ipynb, cold (GRADER_DAEMON=off)")
        s = series("grade one, cold", max(args.repeats, 5), 1, lambda _: measure.run([GRADE, str(one_path), "--json"]))
        results["single_cold"] = summary(s)
        results["single_learner"] = one
        log(f"grade {one}.ipynb, answered by the warm daemon")
        with warm_daemon(out) as env:
            s = series("grade one, warm", max(args.repeats, 5), 1, lambda _: measure.run([GRADE, str(one_path), "--json"], env=env))
        results["single"] = summary(s)

    if "floor" not in skip:
        log("in-process floor (no isolation)")
        floors = []
        s = measure.Series("floor", per=args.n)
        for i in range(args.repeats):
            r = measure.run([sys.executable, str(HERE / "floor.py"), str(subs)])
            if r.returncode != 0:
                raise SystemExit(f"bench: floor failed:\n{r.stderr[-3000:]}")
            s.runs.append(r)
            floors.append(json.loads(r.stdout))
            log(f"  floor #{i + 1}: {floors[-1]['per_notebook_s'] * 1000:.1f} ms/notebook grading, {r.wall:.2f} s whole run")
        results["floor"] = summary(s)
        per = [f["per_notebook_s"] for f in floors]
        results["floor_grading_per_notebook_s"] = [min(per), statistics.median(per), max(per)]
        results["floor_session_start_s"] = statistics.median(f["session_start_s"] for f in floors)
        results["floor_scores"] = floors[-1]["scores"]

    if "selfcheck" not in skip:
        log("check(\"generate\") in a live kernel")
        checks = []
        for i in range(args.repeats):
            r = measure.run([sys.executable, str(HERE / "selfcheck_kernel.py"), "--warm", str(args.warm)])
            if r.returncode != 0:
                raise SystemExit(f"bench: self-check failed:\n{r.stderr[-3000:]}")
            checks.append(json.loads(r.stdout))
            log(f"  check #{i + 1}: warm median {checks[-1]['warm_median_s'] * 1000:.1f} ms, first after load "
                f"{checks[-1]['first_after_load_s'] * 1000:.0f} ms, cold {checks[-1]['cold_connect_and_check_s']:.2f} s")
        results["selfcheck"] = checks

    if "worker" not in skip:
        log("worker start: spawned vs forked from the zygote")
        r = measure.run([sys.executable, str(HERE / "worker_start.py"), "--n", str(max(5, args.repeats * 3))])
        results["worker"] = json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr[-2000:]}

    if "nbgrader" not in skip:
        log("nbgrader: environment (made once, reused)")
        py = nbgrader_course.ensure_venv(out / "nbgrader-venv.log")
        nbgrader_course.ensure_kernel(py)
        results["nbgrader_versions"] = nbgrader_course.versions(py)
        course = out / "nbgrader-course"
        nbgrader_course.lay_out_course(course, {x.id: subs / f"{x.id}.ipynb" for x in learners})
        nbgrader_course.generate_assignment(py, course, out / "nbgrader.log")
        env = nbgrader_course.venv_env()
        log(f"nbgrader autograde, N = {args.n}")
        s = series("nbgrader autograde", args.repeats, args.n,
                   lambda _: measure.run(nbgrader_course.autograde_command(py, course), cwd=course, env=env))
        results["nbgrader"] = summary(s)
        results["nbgrader_scores"] = {k: float(v["score"]) for k, v in nbgrader_course.scores(py, course).items()}
        if "nbgrader-exec" not in skip:
            log(f"nbgrader autograde, execution only (test cells emptied), N = {args.n}")
            plain = out / "nbgrader-course-exec"
            nbgrader_course.lay_out_course(plain, {x.id: subs / f"{x.id}.ipynb" for x in learners}, execution_only=True)
            nbgrader_course.generate_assignment(py, plain, out / "nbgrader.log")
            s = series("nbgrader autograde (execution only)", args.repeats, args.n,
                       lambda _: measure.run(nbgrader_course.autograde_command(py, plain), cwd=plain, env=env))
            results["nbgrader_exec"] = summary(s)
        log(f"nbgrader autograde --student {one}")
        s = series("nbgrader one", max(args.repeats, 3), 1,
                   lambda _: measure.run(nbgrader_course.autograde_command(py, course, one), cwd=course, env=env))
        results["nbgrader_single"] = summary(s)

    if has_batch and "scaling" not in skip:
        results["scaling"] = {}
        for n in args.scaling:
            folder = out / f"scale{n}"
            shutil.rmtree(folder, ignore_errors=True)
            generate.generate(n, folder / "submissions", seed=args.seed)
            repeats = args.repeats if n <= 100 else 1
            log(f"scaling: grade batch, N = {n} ({repeats} run(s))")
            s = series(f"batch N={n}", repeats, n, grade_batch(folder / "submissions", folder / "results", args.jobs))
            results["scaling"][str(n)] = summary(s)
            shutil.rmtree(folder, ignore_errors=True)

    if "batch_scores" in results and "nbgrader_scores" in results:
        results["agreement_nbgrader"] = compare_scores(results["batch_scores"], results["nbgrader_scores"])
    if "batch_scores" in results and "kernel_scores" in results:
        results["agreement_kernel"] = compare_scores(results["batch_scores"], results["kernel_scores"])
    if "batch_scores" in results and "floor_scores" in results:
        results["agreement_floor"] = compare_scores(results["batch_scores"], results["floor_scores"])
    results["load_average_end"] = measure.load_average()
    return results


# -- the report ------------------------------------------------------------------------------------------------

def _f(x: float, unit: str = "s") -> str:
    if unit == "ms":
        return f"{x * 1000:.0f} ms" if x >= 0.01 else f"{x * 1000:.1f} ms"
    return f"{x:.3f} s" if x < 1 else f"{x:.2f} s"


def _mmm(values: list[float] | tuple[float, ...], unit: str = "s") -> str:
    lo, mid, hi = values
    return f"{_f(lo, unit)} / **{_f(mid, unit)}** / {_f(hi, unit)}"


def _met(ok: bool | None) -> str:
    return "n/a" if ok is None else ("yes" if ok else "**no**")


def report(r: dict[str, Any]) -> str:
    m = r["machine"]
    lines = [
        f"Measured {m['date']} by `python bench/run.py{' --quick' if r['options']['quick'] else ''}` "
        f"(N = {r['options']['n']}, {r['options']['repeats']} repeat(s), `--jobs {r['options']['jobs']}`), commit {m['commit']}.",
        "",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['ram']} RAM, {m['os']}, Python {m['python']}.",
        "- Packages: " + ", ".join(f"{k} {v}" for k, v in m["packages"].items())
        + (", nbgrader env: " + ", ".join(f"{k} {v}" for k, v in r["nbgrader_versions"].items()) if "nbgrader_versions" in r else "") + ".",
        f"- Load average (1, 5, 15 min) at start: {r['load_average_start']}; at end: {r['load_average_end']}. "
        "Figures taken on a loaded machine are slower than on an idle one.",
        f"- Submissions: {r['mix']} (seed {r['options'].get('seed', 1)}).",
        "",
        "All times are wall-clock, min / **median** / max over the repeats. Peak memory: largest sampled sum of RSS "
        "over the whole process tree (see `bench/measure.py`).",
        "",
        "| measurement | ours | nbgrader | ratio (median) | target | met |",
        "|---|---|---|---|---|---|",
    ]
    b, nb = r.get("batch"), r.get("nbgrader")
    if b:
        ratio = (nb["per_notebook_s"][1] / b["per_notebook_s"][1]) if nb else None
        lines.append(
            f"| batch of {b['per']}: per notebook | {_mmm(b['per_notebook_s'])} | {_mmm(nb['per_notebook_s']) if nb else 'skipped'} "
            f"| {f'{ratio:.1f}x' if ratio else 'n/a'} | >= {TARGETS['batch_vs_nbgrader']:.0f}x | "
            f"{_met(ratio >= TARGETS['batch_vs_nbgrader'] if ratio else None)} |")
        lines.append(
            f"| batch of {b['per']}: whole run | {_mmm(b['wall_s'])} | {_mmm(nb['wall_s']) if nb else 'skipped'} | | | |")
        lines.append(
            f"| batch: notebooks/s (median) | {b['notebooks_per_s'][1]:.2f} | {nb['notebooks_per_s'][1]:.3f} | | | |" if nb else
            f"| batch: notebooks/s (median) | {b['notebooks_per_s'][1]:.2f} | skipped | | | |")
        lines.append(
            f"| batch: CPU seconds per notebook (median) | {b['cpu_s'][1] / b['per']:.3f} | "
            f"{nb['cpu_s'][1] / nb['per']:.3f} | | | |" if nb else
            f"| batch: CPU seconds per notebook (median) | {b['cpu_s'][1] / b['per']:.3f} | skipped | | | |")
        lines.append(
            f"| batch: peak memory (MiB, median) | {b['peak_rss_mib'][1]:.0f} | {nb['peak_rss_mib'][1]:.0f} | | | |" if nb else
            f"| batch: peak memory (MiB, median) | {b['peak_rss_mib'][1]:.0f} | skipped | | | |")
        ne = r.get("nbgrader_exec")
        if ne:
            ratio = ne["per_notebook_s"][1] / b["per_notebook_s"][1]
            lines.append(
                f"| batch of {b['per']}: per notebook vs nbgrader *execution only* (test cells emptied: no grading) "
                f"| {_mmm(b['per_notebook_s'])} | {_mmm(ne['per_notebook_s'])} | {ratio:.1f}x | | |")
    k = r.get("kernel_batch")
    if k:
        ratio = (nb["per_notebook_s"][1] / k["per_notebook_s"][1]) if nb else None
        lines.append(
            f"| batch of {k['per']}, real-kernel mode (`--kernel`: ipykernel per notebook, same sandbox): per notebook "
            f"| {_mmm(k['per_notebook_s'])} | {_mmm(nb['per_notebook_s']) if nb else 'skipped'} | {f'{ratio:.1f}x' if ratio else 'n/a'} | | |")
    if b is None and r.get("batch_missing"):
        lines.append("| batch | `grade batch` not available in this tree | | | | |")
    s, ns, sc = r.get("single"), r.get("nbgrader_single"), r.get("single_cold")
    if sc:
        ratio = ns["wall_s"][1] / sc["wall_s"][1] if ns else None
        lines.append(
            f"| one notebook, cold (`GRADER_DAEMON=off`: a script, CI, the first call) vs `autograde --student` | {_mmm(sc['wall_s'])} | "
            f"{_mmm(ns['wall_s']) if ns else 'skipped'} | {f'{ratio:.1f}x' if ratio else 'n/a'} | | |")
    if s:
        ratio = ns["wall_s"][1] / s["wall_s"][1] if ns else None
        lines.append(
            f"| one notebook, warm daemon (`grade x.ipynb` from a terminal, after the first) vs `autograde --student` | {_mmm(s['wall_s'])} | "
            f"{_mmm(ns['wall_s']) if ns else 'skipped'} | {f'{ratio:.1f}x' if ratio else 'n/a'} | < {TARGETS['single_wall_s']} s | "
            f"{_met(s['wall_s'][1] < TARGETS['single_wall_s'])} |")
    checks = r.get("selfcheck")
    if checks:
        warm = [c["warm_median_s"] for c in checks]
        first = [c["first_after_load_s"] for c in checks]
        cold = [c["cold_connect_and_check_s"] for c in checks]
        loaded = [c["loaded_s"] for c in checks]
        all_warm = [c["check_all_warm_s"] for c in checks]
        mm = lambda v: (min(v), statistics.median(v), max(v))  # noqa: E731
        lines += [
            f"| `check(\"generate\")`, warm (median of {len(checks[0]['warm_s'])} calls per kernel) | {_mmm(mm(warm), 'ms')} | | | < 100 ms | {_met(statistics.median(warm) < TARGETS['check_s'])} |",
            f"| `check(\"generate\")`, first call once loaded | {_mmm(mm(first), 'ms')} | | | < 100 ms | {_met(statistics.median(first) < TARGETS['check_s'])} |",
            f"| `connect` then `check` at once (cold, waits for the load) | {_mmm(mm(cold))} | | | | |",
            f"| suites loaded in the background after `connect` | {_mmm(mm(loaded))} | | | | |",
            f"| `check_all()`, warm | {_mmm(mm(all_warm), 'ms')} | | | | |",
        ]
    f = r.get("floor")
    if f and b:
        grading = r["floor_grading_per_notebook_s"]
        ratio = b["per_notebook_s"][1] / grading[1]
        cpu_ratio = (b["cpu_s"][1] / b["per"]) / (f["cpu_s"][1] / f["per"])
        lines += [
            f"| in-process floor: per notebook, grading only (1 process) | {_mmm(grading, 'ms')} | | | | |",
            f"| in-process floor: whole run incl. start | {_mmm(f['wall_s'])} | | | | |",
            f"| isolation cost: batch per notebook / floor per notebook | {ratio:.1f}x wall, {cpu_ratio:.1f}x CPU | | | <= {TARGETS['isolation_vs_floor']:.0f}x | {_met(ratio <= TARGETS['isolation_vs_floor'])} |",
        ]
    sc = r.get("scaling")
    if sc:
        for n, v in sc.items():
            target = f"< {TARGETS['thousand_s']:.0f} s" if n == "1000" else ""
            met = _met(v["wall_s"][1] < TARGETS["thousand_s"]) if n == "1000" else ""
            lines.append(
                f"| scaling N = {n}: whole run / per notebook / peak memory | {_f(v['wall_s'][1])} / {_f(v['per_notebook_s'][1], 'ms')} / "
                f"{v['peak_rss_mib'][1]:.0f} MiB | | | {target} | {met} |")
    lines = [ln for ln in lines if ln is not None]
    w = r.get("worker")
    if w and "error" not in w:
        lines += [
            "",
            f"Worker life (`bench/worker_start.py`: start, run the solution's cells, answer one call, close): bare `python -I` "
            f"{_f(w['bare_python_s']['median'], 'ms')}; a spawned worker {_f(w['spawn_worker_s']['median'], 'ms')}; "
            + (f"a worker forked from the zygote {_f(w['fork_worker_s']['median'], 'ms')} (medians; the zygote boots once in "
               f"{_f(w['zygote_boot_s'], 'ms')})." if w.get("fork_worker_s") else f"no zygote: {w.get('note')}."),
        ]
    for key, label in (("agreement_nbgrader", "nbgrader autograde"), ("agreement_kernel", "`grade batch --kernel`"), ("agreement_floor", "the in-process floor")):
        a = r.get(key)
        if a:
            text = f"Scores: `grade batch` and {label} agree on {a['agree']} of {a['compared']} submissions"
            if a["differ"]:
                text += "; they differ on " + ", ".join(f"{k} ({x:g} vs {y:g})" for k, (x, y) in sorted(a["differ"].items()))
            lines += ["", text + "."]
    return "\n".join(lines).replace("\n\n\n", "\n\n") + "\n"


def write_results(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else f"# Benchmark results\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text:
        text += f"\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1] if END in rest else ""
    path.write_text(f"{head}{BEGIN}\n{body}{END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Time grade against nbgrader autograde on generated Decode submissions.")
    parser.add_argument("--quick", action="store_true", help="N = 10, 1 repeat, scaling 10 and 100, 5 warm checks.")
    parser.add_argument("-n", type=int, help="submissions in the side-by-side batch (default 40)")
    parser.add_argument("--repeats", type=int, help="runs of each measurement (default 3)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="grade batch --jobs (default: one per core)")
    parser.add_argument("--scaling", help="comma-separated N for the scaling runs (default 10,100,1000)")
    parser.add_argument("--warm", type=int, help="warm check() calls per kernel (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip", default="", help="comma-separated steps to skip: batch,kernel,single,floor,selfcheck,worker,nbgrader,nbgrader-exec,scaling")
    parser.add_argument("--out", type=Path, default=HERE / "out")
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md", help="file whose marked section gets the table")
    parser.add_argument("--no-write", action="store_true", help="do not touch RESULTS.md")
    args = parser.parse_args(argv)
    args.n = args.n or (10 if args.quick else 40)
    args.repeats = args.repeats or (1 if args.quick else 3)
    args.warm = args.warm or (5 if args.quick else 10)
    args.scaling = [int(x) for x in (args.scaling or ("10,100" if args.quick else "10,100,1000")).split(",") if x]
    args.skip = [x for x in args.skip.split(",") if x]
    results = run(args)
    results["options"]["seed"] = args.seed
    (args.out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    body = report(results)
    print(body)
    if not args.no_write:
        write_results(args.results, body)
        log(f"wrote {args.results} and {args.out / 'results.json'}")


if __name__ == "__main__":
    main()
