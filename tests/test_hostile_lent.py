"""Hostile round 3 (issue 19, items 1-3): lent solution functions cost the trusted side one call's time, whatever
their arguments, and no value check rests on what the learner's worker reports.

The fixture lesson ``lent`` (tests/fixtures/lent_lessons/lent: a folder of its own, so that the squares folder
keeps one lesson and ``grade batch --lessons`` there needs no ``--lesson``) has reference functions hostile to
whoever runs them:
``count_up`` loops n times in pure Python, ``repeat`` builds a text from its argument, ``depth`` recurses n deep.
They are lent to ``combine``'s tests, and the hostile learners' ``combine`` calls them with huge arguments. Each
is graded for real (``grade`` and ``grade batch``, at both isolation levels) under an address-space cap, so that a
grader that ran them in its own process would stall for minutes or run out of memory instead of passing, and the
peak memory of every trusted process (the grader's uid: the grading processes, the batch, bwrap, zygotes; never a
worker, which runs as a learner uid) is sampled while it runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS
from grader.execute.protocol import Returned
from grader.execute.runner import Workers
from grader.lessons import load_lesson
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import REPO
from tests.test_hostile import ANY_LEVEL, LEVELS, mode_of

FIXTURE_LESSONS = Path(__file__).resolve().parent / "fixtures" / "lent_lessons"
LESSON = FIXTURE_LESSONS / "lent"
LENT = ("--lessons", str(FIXTURE_LESSONS), "--lesson", "lent")
SOLUTION = LESSON / "solution.ipynb"
FULL = load_lesson("lent", FIXTURE_LESSONS).max_score
COMBINE = load_lesson("lent", FIXTURE_LESSONS).question("combine").points
#: What each hostile learner's ``combine`` does with a lent function before it answers honestly.
ATTACKS = {
    "spin": "count_up(10**10)",  # a pure-Python loop: hours
    "alloc": 'repeat("x" * 60000, 15000)',  # 900 MB of text, then its encoding
    "recurse": "depth(10**8)",  # a hundred million frames
}
#: The address space the grader's processes may take in these tests: a grader that ran the hostile functions
#: itself fails with MemoryError well before it could disturb the shared machine.
CAP = 3_000_000_000
#: Peak resident memory any trusted process may reach (they need ~150 MB; the attacks need gigabytes).
TRUSTED_PEAK_KB = 600_000
#: Seconds one learner's grading may take at the default limits (two of its tests stop at the 5 s call limit
#: and restart a worker each); a grader that ran ``count_up(10**10)`` itself takes hours.
PER_LEARNER = 60.0


def hostile_notebook(folder: Path, name: str, attack: str) -> Path:
    nb = json.loads(SOLUTION.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if "".join(c["source"]).startswith("def combine("))
    cell["source"] = (
        f"def combine(n):\n    try:\n        {attack}\n    except Exception:\n        pass\n"
        "    return count_up(n) + len(repeat('ab', n)) + depth(n)"
    )
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


@dataclass
class Run:
    result: subprocess.CompletedProcess[str] | None
    """None if it did not end within its time."""
    seconds: float
    peak_kb: int
    """The highest peak resident memory (VmHWM) seen of any process of the grader's uid under the command."""


def run_capped(command: list[str], env: dict[str, str], seconds: float) -> Run:
    """Run ``command`` under :data:`CAP`, sampling its trusted processes' peak memory until it ends (or is killed)."""
    full_env = {**os.environ, "GRADER_DAEMON": "off", **env}
    started = time.monotonic()
    proc = subprocess.Popen(
        ["prlimit", f"--as={CAP}", "--", *command],
        cwd=REPO,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    peak = 0
    out = err = ""
    while True:
        peak = max(peak, _trusted_peak(proc.pid))
        try:
            out, err = proc.communicate(timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            if time.monotonic() - started > seconds:
                os.killpg(proc.pid, 9)
                proc.communicate()
                return Run(None, time.monotonic() - started, peak)
    result = subprocess.CompletedProcess(command, proc.returncode, out, err)
    return Run(result, time.monotonic() - started, peak)


def _trusted_peak(root: int) -> int:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    tree, frontier = {root}, [root]
    while frontier:
        pid = frontier.pop()
        children = [p for p, parent in parents.items() if parent == pid and p not in tree and not _worker(p)]
        tree.update(children)
        frontier.extend(children)
    peak = 0
    for pid in tree:
        try:
            status = dict(
                line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line
            )
        except OSError:
            continue
        if int(status.get("Uid", "-1").split()[0]) == os.getuid() and "VmHWM" in status:
            peak = max(peak, int(status["VmHWM"].split()[0]))
    return peak


def _worker(pid: int) -> bool:
    """Whether ``pid`` runs learner or lender code (at the process level as our own uid, its uid says nothing)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return any(program in command for program in (b"worker_main", b"kernel_main", b"lender_main"))


def _report(run: Run) -> dict[str, Any]:
    assert run.result is not None, f"grading did not end within {run.seconds:.0f} s"
    assert run.result.returncode == 0, run.result.stderr[-2000:]
    report: dict[str, Any] = json.loads(run.result.stdout)
    return report


def _scores(report: dict[str, Any]) -> dict[str, float]:
    return {q["id"]: q["score"] for q in report["questions"]}


# -- the deciding test: the fixture lesson, alone and in a batch, at both isolation levels ----------------------
@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_hostile_lent_functions_cost_one_call_alone(level: str, name: str, tmp_path: Path) -> None:
    notebook = hostile_notebook(tmp_path, name, ATTACKS[name])
    command = ["grade", str(notebook), "--lessons", str(FIXTURE_LESSONS), "--json"]
    run = run_capped(command, {"GRADER_ISOLATION": level}, PER_LEARNER)
    report = _report(run)
    assert run.peak_kb < TRUSTED_PEAK_KB, f"a trusted process reached {run.peak_kb} KB"
    scores = _scores(report)
    assert report["score"] >= FULL - COMBINE  # its own answers to the other questions are its own
    assert {q: s for q, s in scores.items() if q != "combine"} == {"count_up": 1.0, "repeat": 1.0, "depth": 1.0}
    # A call that runs for hours costs the question its call limit. One that ends in an error the learner may have
    # caught before answering honestly: the allocation a worker refuses, and the recursion 10**8 deep, whose end the
    # Python version and its stack decide (here 3.11 lost the question; 3.10 and 3.13 kept it).
    assert scores["combine"] < COMBINE or name != "spin"


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_hostile_lent_functions_cost_one_call_in_a_batch(level: str, tmp_path: Path) -> None:
    folder = tmp_path / "submissions"
    folder.mkdir()
    for honest in ("honest_a", "honest_b"):
        (folder / f"{honest}.ipynb").write_bytes(SOLUTION.read_bytes())
    for name, attack in ATTACKS.items():
        hostile_notebook(folder, name, attack)
    out = tmp_path / "out"
    command = ["grade", "batch", str(folder), *LENT, "--out", str(out), "--jobs", "2"]
    run = run_capped(command, {"GRADER_ISOLATION": level}, PER_LEARNER * 5)
    assert run.result is not None, f"grade batch did not end within {run.seconds:.0f} s"
    assert run.result.returncode == 0, run.result.stderr[-2000:]
    assert run.peak_kb < TRUSTED_PEAK_KB, f"a trusted process reached {run.peak_kb} KB"
    import csv

    with (out / "grades.csv").open(newline="", encoding="utf-8") as f:
        rows = {r["learner"]: float(r["score"]) for r in csv.DictReader(f)}
    assert set(rows) == {"honest_a", "honest_b", *ATTACKS}
    assert rows["honest_a"] == rows["honest_b"] == FULL
    assert all(rows[name] >= FULL - COMBINE for name in ATTACKS)


@pytest.mark.slow
def test_hostile_lent_functions_cost_one_call_through_gradescope(tmp_path: Path) -> None:
    """The Gradescope entry grades the same way: results.json is written, within the learner's bound."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    hostile_notebook(root / "submission", "spin", ATTACKS["spin"])
    command = ["grade", "gradescope", "--root", str(root), *LENT]
    run = run_capped(command, {}, PER_LEARNER)
    assert run.result is not None, f"grade gradescope did not end within {run.seconds:.0f} s"
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert results["score"] >= FULL - COMBINE
    assert run.peak_kb < TRUSTED_PEAK_KB


# -- items 1 and 2 of "What was seen", on the Decode lesson ------------------------------------------------------------
DECODE_SOLUTION = REPO / "solutions" / "decode.ipynb"
DECODE_FULL = load_lesson("decode").max_score


def decode_notebook(folder: Path, name: str, answer: str, source: str) -> Path:
    nb = json.loads(DECODE_SOLUTION.read_text(encoding="utf-8"))
    cell = next(
        c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith(f"def {answer}(")
    )
    cell["source"] = source
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


#: Item 1 as seen: the reference kv_decode_time, lent to expected_tokens_per_pass, loops n_tokens times.
TRUSTED_CPU = """
def expected_tokens_per_pass(k, a):
    try:
        kv_decode_time(600_000_000, 1000, 14e9, 5e5, 1e12)
    except Exception:
        pass
    return k + 1 if a == 1 else (1 - a ** (k + 1)) / (1 - a)
"""
#: Item 2: a string repetition inside the lent request_time, then its encoding.
TRUSTED_MEMORY = """
def batch_throughput(param_bytes, bandwidth, batch):
    try:
        request_time("", "x" * 60000, 15000)
    except Exception:
        pass
    per_stream = tokens_per_second(param_bytes, bandwidth)
    return batch * per_stream, per_stream
"""


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("item", ["cpu", "memory"])
def test_decode_lent_references_cost_the_grader_one_call(level: str, item: str, tmp_path: Path) -> None:
    answer, source = {
        "cpu": ("expected_tokens_per_pass", TRUSTED_CPU),
        "memory": ("batch_throughput", TRUSTED_MEMORY),
    }[item]
    notebook = decode_notebook(tmp_path, item, answer, source)
    run = run_capped(["grade", str(notebook), "--json"], {"GRADER_ISOLATION": level}, 120)
    report = _report(run)
    assert run.peak_kb < TRUSTED_PEAK_KB, f"a trusted process reached {run.peak_kb} KB"
    scores = _scores(report)
    lost = {q["id"] for q in report["questions"] if q["score"] < q["max_score"]}
    assert lost <= {answer}, f"only {answer} may lose points, not {lost - {answer}}"
    assert report["score"] < DECODE_FULL or item == "memory"
    assert scores[answer] < load_lesson("decode").question(answer).points or item == "memory"


# -- item 3: facts only the worker can see, and what no value check rests on -------------------------------------------
GENERATES = {
    "honest": None,
    "mutates": "def generate(next_token, prompt, n):\n    for _ in range(n):\n"
    "        prompt.append(next_token(prompt))\n    return prompt",
    "prepends": "def generate(next_token, prompt, n):\n    seq = list(prompt)\n    for _ in range(n):\n"
    "        seq.insert(0, next_token(seq))\n    return seq",
    "buffer": "out = []\ndef generate(next_token, prompt, n):\n    out.clear()\n    out.extend(prompt)\n"
    "    for _ in range(n):\n        out.append(next_token(out))\n    return out",
}


class Forged:
    """A target whose calls' reports say what ``report`` says, whatever the worker saw (a patched worker)."""

    def __init__(self, inner: Any, changed: tuple[str, ...], same_as: str | None) -> None:
        self._inner, self._changed, self._same_as = inner, changed, same_as

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], swaps: dict[str, Any]) -> Returned:
        return Returned(self._inner.call(name, args, kwargs, swaps).value, self._changed, self._same_as)

    def value(self, name: str) -> Any:
        return self._inner.value(name)

    def lent(self, name: str) -> Any:
        return self._inner.lent(name)

    def reached(self, name: str) -> Any:
        return self._inner.reached(name)

    def close(self) -> None:
        self._inner.close()


@pytest.fixture(scope="module")
def generate_outcomes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[tuple[str, str], dict[str, bool]]]:
    """Whether each generate test passed, per notebook and per report: the worker's own, "clean" (nothing changed,
    nothing aliased: what a patched worker says) and "dirty" (every argument changed, the result is argument 0)."""
    folder = tmp_path_factory.mktemp("reports")
    lesson = load_lesson("decode")
    limits, mode = replace(DEFAULT_LIMITS, call_timeout=2.0), mode_of(ANY_LEVEL)
    reports = {"own": None, "clean": ((), None), "dirty": (("0", "1", "2", "prompt", "n"), "argument 0")}
    outcomes: dict[tuple[str, str], dict[str, bool]] = {}
    with SuiteSession(lesson) as suites:
        for name, source in GENERATES.items():
            path = DECODE_SOLUTION if source is None else decode_notebook(folder, name, "generate", source)
            submission = read_submission(path)
            for report, forged in reports.items():
                workers = Workers(limits, mode)
                try:
                    worker = workers.start(submission)
                    worker.run_notebook()
                    target: Any = workers.target(submission, worker)
                    if forged is not None:
                        target = Forged(target, *forged)
                    results = suites.run(target, frozenset({"generate"}))
                    outcomes[name, report] = {o.name: o.status == "passed" for o in results}
                finally:
                    workers.close()
    yield outcomes


@pytest.mark.slow
def test_a_report_can_only_take_points_away(generate_outcomes: dict[tuple[str, str], dict[str, bool]]) -> None:
    """No value check rests on the worker's report: forging it clean never makes a wrong value pass, and forging
    it dirty never makes a right value's test pass; it only adds failures of its own (in place, aliasing)."""
    for name in GENERATES:
        own, clean, dirty = (generate_outcomes[name, r] for r in ("own", "clean", "dirty"))
        assert set(own) == set(clean) == set(dirty) and own
        for test in own:
            assert dirty[test] <= own[test] <= clean[test], (name, test)
    assert all(generate_outcomes["honest", "own"].values())
    assert not any(generate_outcomes["honest", "dirty"].values())  # every generate test reads the report...
    assert generate_outcomes["prepends", "clean"] == generate_outcomes["prepends", "own"]  # ...after the values
    assert not all(generate_outcomes["prepends", "clean"].values())


@pytest.mark.slow
def test_what_a_patched_report_earns_is_what_security_md_says(
    generate_outcomes: dict[tuple[str, str], dict[str, bool]],
) -> None:
    """The one thing a learner who patches the worker's report gains: in-place changes and aliasing go unseen
    (SECURITY.md, "What is not defended"). The values the trusted side saw are still checked."""
    for name in ("mutates", "buffer"):
        assert not all(generate_outcomes[name, "own"].values())
        assert all(generate_outcomes[name, "clean"].values())
