"""Hostile round 2: the trusted side of the channel cannot be borrowed, hung, flooded or crashed by a learner.

Each hostile notebook is the Decode solution with one or two answers rewritten the way a determined learner
would (issue 15), graded beside the honest solution at both isolation levels and through a zygote (and, for a
hang, through `grade batch` and the warm daemon). Each test asserts the invariant, not just the absence of
a traceback: the score is no higher than the learner's own code earns, grading ends within its bound, the
honest learner keeps full marks, and what the learner reads says what happened. The hostile code that
waits sleeps ``SLEEP`` seconds, far beyond every bound here, so that on a grader without the invariant the
test fails (and still ends) instead of passing by luck.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS, Limits
from grader.execute.channel import BadMessage, CallDepthExceeded, ChannelTimeout, Endpoint, RemoteError, without_paths
from grader.execute.runner import Workers
from grader.execute.worker import guard
from grader.execute.zygote import Zygote
from grader.lessons import load_lesson
from grader.model import Report, Submission
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import REPO
from tests.test_daemon import Daemons, daemons  # noqa: F401  (the fixture)
from tests.test_hostile import LEVELS, mode_of, shared_tmp, worker_level, zygotes  # noqa: F401  (fixtures)

SOLUTION = REPO / "solutions" / "decode.ipynb"
SLEEP = 120
FULL = load_lesson("decode").max_score
"""Full marks for the Decode lesson, read from its definition (questions get added)."""
LIMITS = replace(DEFAULT_LIMITS, timeout=20.0, call_timeout=1.0)
#: Seconds the in-process batch below may take at most (it takes well under half of that); every hostile notebook
#: that waits sleeps SLEEP seconds, so a grader that waits for it cannot finish in time.
BATCH_SECONDS = 100.0

HONEST_CALL_ORDER = """
    lengths = []
    def wrapper(seq):
        lengths.append(len(seq))
        return next_token(seq)
    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
"""

#: Item 1: the reference tokens_per_second, lent to batch_throughput while it is tested, kept for later.
STASH_FALLBACK = """
stash = []
def tokens_per_second(param_bytes, bandwidth):
    for lent in stash:
        try:
            return lent(param_bytes, bandwidth)
        except Exception:
            pass
    return param_bytes / bandwidth
"""
STASH_RAW = """
stash = []
def tokens_per_second(param_bytes, bandwidth):
    if stash:
        return stash[-1](param_bytes, bandwidth)
    return param_bytes / bandwidth
"""
OWN_TOKENS_PER_SECOND = """
def tokens_per_second(param_bytes, bandwidth):
    return param_bytes / bandwidth
"""
STASHING_BATCH = """
def batch_throughput(param_bytes, bandwidth, batch):
    stash.append(tokens_per_second)
    per_stream = tokens_per_second(param_bytes, bandwidth)
    return batch * per_stream, per_stream
"""
#: Item 2: a wrapper the trusted generate stand-in calls back, which never returns (in one test).
NESTED_HANG = f"""
import time
def call_order_is_sequential(next_token, prompt, n):
    lengths = []
    def wrapper(seq):
        if list(prompt) == [7, 8]:
            time.sleep({SLEEP})
        lengths.append(len(seq))
        return next_token(seq)
    generate(wrapper, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
"""
#: Item 3: the worker asks the generate stand-in for an 18 KB reply behind the grader's back, on a pipe it shrank
#: to 4 KB, and never reads it.
BLOCKED_WRITE = f"""
import fcntl, gc, json, os, time
def call_order_is_sequential(next_token, prompt, n):
    if list(prompt) == [7, 8]:
        endpoint = next(o for o in gc.get_objects() if type(o).__name__ == "Endpoint")
        fcntl.fcntl(endpoint._rfd, fcntl.F_SETPIPE_SZ, 4096)
        fn = int(generate.__name__.rsplit("_", 1)[1])
        call = {{"t": "call", "id": 1 << 40, "fn": fn, "args": [0, [49999] * 3000, 0]}}
        os.write(endpoint._wfd, (json.dumps(call) + "\\n").encode())
        time.sleep({SLEEP})
{HONEST_CALL_ORDER}"""
#: Item 4: call_order_is_sequential -> the generate stand-in -> a wrapper that calls call_order_is_sequential ...
RECURSION = """
deepest = [0]
def call_order_is_sequential(next_token, prompt, n, level=1):
    deepest[0] = max(deepest[0], level)
    first = [True]
    def wrapper(seq):
        if first[0]:
            first[0] = False
            try:
                call_order_is_sequential(next_token, prompt, n, level + 1)
            except Exception:
                pass
        return next_token(seq)
    try:
        generate(wrapper, prompt, n)
    except Exception:
        pass
    return deepest[0]
"""
#: Item 5: work in the trusted process sized by the learner's argument (quadratic before).
HUGE_N = f"""
def call_order_is_sequential(next_token, prompt, n):
    try:
        generate(lambda seq: 0, [], 50_000)
    except Exception:
        pass
{HONEST_CALL_ORDER}"""
#: The same through a tuple (round 4: the stand-in's bound once looked only at lists) and a string.
HUGE_N_TUPLE = f"""
def call_order_is_sequential(next_token, prompt, n):
    for odd in (tuple(prompt), "ab", range(3)):
        try:
            generate(next_token, odd, 10**10)
        except Exception:
            pass
{HONEST_CALL_ORDER}"""
#: Item 6: a message of 50,000 callable references, twenty times.
REFERENCES = f"""
def call_order_is_sequential(next_token, prompt, n):
    for _ in range(20):
        try:
            next_token([len] * 50_000)
        except Exception:
            pass
{HONEST_CALL_ORDER}"""
#: Entry: lone surrogates (a byte-level tokenizer's "\\udcff") in a value, an exception message and a cell error.
SURROGATES = """
def request_time(ttft, itl, n_out):
    raise ValueError("byte \\udcff in token " + chr(0xDCFF))
"""
SURROGATE_CELL = 'raise ValueError("a lone surrogate: \\udcff")'
#: Item 12: a trusted exception's traceback handed to the learner, re-raised into their feedback.
TRACEBACK = """
def call_order_is_sequential(next_token, prompt, n):
    try:
        generate(None, None, None)
    except Exception as err:
        raise ValueError(f"{err} {getattr(err, 'traceback', '')}")
"""


def decode_notebook(folder: Path, name: str, **answers: str) -> Path:
    """The Decode solution with the cell defining each named answer replaced by ``answers[name]``."""
    nb = json.loads(SOLUTION.read_text(encoding="utf-8"))
    for answer, source in answers.items():
        cell = next(
            c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).startswith(f"def {answer}(")
        )
        cell["source"] = source
    path = folder / f"{name}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def hostile_notebooks(folder: Path) -> dict[str, Path]:
    nb = decode_notebook
    surrogates = nb(folder, "surrogates", request_time=SURROGATES)
    cells = json.loads(surrogates.read_text(encoding="utf-8"))
    cells["cells"].append(
        {"cell_type": "code", "metadata": {}, "source": SURROGATE_CELL, "outputs": [], "execution_count": None}
    )
    surrogates.write_text(json.dumps(cells), encoding="utf-8")
    return {
        "honest": SOLUTION,
        "stash": nb(folder, "stash", tokens_per_second=STASH_FALLBACK, batch_throughput=STASHING_BATCH),
        "own_code": nb(folder, "own_code", tokens_per_second=OWN_TOKENS_PER_SECOND),
        "stash_raw": nb(folder, "stash_raw", tokens_per_second=STASH_RAW, batch_throughput=STASHING_BATCH),
        "nested_hang": nb(folder, "nested_hang", call_order_is_sequential=NESTED_HANG),
        "blocked_write": nb(folder, "blocked_write", call_order_is_sequential=BLOCKED_WRITE),
        "recursion": nb(folder, "recursion", call_order_is_sequential=RECURSION),
        "huge_n": nb(folder, "huge_n", call_order_is_sequential=HUGE_N),
        "huge_n_tuple": nb(folder, "huge_n_tuple", call_order_is_sequential=HUGE_N_TUPLE),
        "references": nb(folder, "references", call_order_is_sequential=REFERENCES),
        "surrogates": surrogates,
        "traceback": nb(folder, "traceback", call_order_is_sequential=TRACEBACK),
    }


NAMES = (
    "honest",
    "stash",
    "own_code",
    "stash_raw",
    "nested_hang",
    "blocked_write",
    "recursion",
    "huge_n",
    "huge_n_tuple",
    "references",
    "surrogates",
    "traceback",
)


def by_id(report: Report | dict[str, Any]) -> dict[str, dict[str, Any]]:
    questions = report["questions"] if isinstance(report, dict) else [asdict(q) for q in report.questions]
    return {q["id"]: q for q in questions}


def feedback(report: Report, qid: str) -> str:
    return " ".join(by_id(report)[qid]["feedback"])


def full_marks_except(report: Report, *lost: str) -> bool:
    return all(q["score"] == q["max_score"] for qid, q in by_id(report).items() if qid not in lost)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from strings(v)


@dataclass
class Batch:
    reports: dict[str, Report]
    seconds: float


@pytest.fixture(scope="module")
def batch(worker_level: str, shared_tmp: Path) -> Iterator[Batch]:  # noqa: F811  (the imported fixtures)
    """Every hostile notebook and the honest solution, graded together in four threads, as a batch's process does.

    Each learner is graded in a daemon thread, so that a grader that hangs fails the bound below instead of
    hanging the test run."""
    level = worker_level
    folder = shared_tmp / f"channel-{level}"
    folder.mkdir()
    folder.chmod(0o711)
    lesson = load_lesson("decode")
    limits, mode = LIMITS, mode_of(level)
    submissions = {name: read_submission(path) for name, path in hostile_notebooks(folder).items()}
    reports: dict[str, Report] = {}
    slots = threading.Semaphore(4)
    idle = list(zygotes(level, 4, limits)) or [None] * 4
    lock = threading.Lock()
    suites = SuiteSession(lesson).__enter__()

    def grade(name: str, submission: Submission) -> None:
        with slots:
            with lock:
                zygote: Zygote | None = idle.pop()
            try:
                with Workers(limits, mode, zygote) as workers:
                    reports[name] = grade_submission(submission, lesson, suites, workers, lent_solution(lesson))
            finally:
                with lock:
                    idle.append(zygote)

    started = time.monotonic()
    threads = [threading.Thread(target=grade, args=item, daemon=True) for item in submissions.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, started + BATCH_SECONDS - time.monotonic()))
    yield Batch(dict(reports), time.monotonic() - started)
    if all(not t.is_alive() for t in threads):  # else a grader without the invariants is stuck: leave it to exit
        suites.__exit__()
        for zygote in idle:
            if zygote is not None:
                zygote.close()


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_the_batch_ends_in_time_and_the_honest_learner_keeps_full_marks(batch: Batch) -> None:
    assert sorted(batch.reports) == sorted(NAMES), (
        f"only {sorted(batch.reports)} were graded within {BATCH_SECONDS:g} s"
    )
    assert batch.seconds < BATCH_SECONDS
    honest = batch.reports["honest"]
    assert honest.score == honest.max_score == FULL


# -- item 1: a lent function is valid only during the call that lent it -----------------------------------------
@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_stashed_stand_in_earns_nothing_beyond_the_learners_own_code(batch: Batch) -> None:
    stash, own = batch.reports["stash"], batch.reports["own_code"]
    assert by_id(stash)["tokens_per_second"]["score"] == 0
    assert stash.score <= own.score < FULL


@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_stale_stand_in_is_an_error_the_learner_can_read(batch: Batch) -> None:
    report = batch.reports["stash_raw"]
    assert by_id(report)["tokens_per_second"]["score"] == 0
    assert "LentFunctionExpired: this function was lent for one call only" in feedback(report, "tokens_per_second")
    assert full_marks_except(report, "tokens_per_second")


# -- items 2 and 3: every wait and every write of the grader has a deadline -----------------------------------------
@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_callback_that_never_returns_costs_only_its_own_test(batch: Batch) -> None:
    report = batch.reports["nested_hang"]
    assert "did not return in time and was stopped" in feedback(report, "call_order_is_sequential")
    assert 0 < by_id(report)["call_order_is_sequential"]["score"] < 3
    assert full_marks_except(report, "call_order_is_sequential")


@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_worker_that_stops_reading_cannot_block_the_graders_writes(batch: Batch) -> None:
    report = batch.reports["blocked_write"]
    assert "did not return in time and was stopped" in feedback(report, "call_order_is_sequential")
    assert 0 < by_id(report)["call_order_is_sequential"]["score"] < 3
    assert full_marks_except(report, "call_order_is_sequential")


# -- item 4: calls nest through the channel at most max_call_depth deep ----------------------------------------------
@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_mutual_recursion_through_a_stand_in_stops_at_the_documented_depth(batch: Batch) -> None:
    report = batch.reports["recursion"]
    reached = {int(d) for d in re.findall(r"returned (\d+) \(an? int\)", feedback(report, "call_order_is_sequential"))}
    assert reached == {LIMITS.max_call_depth}
    assert full_marks_except(report, "call_order_is_sequential")


# -- items 5 and 6: sizes the learner controls are bounded before the grader works on them -----------------------------
@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_huge_n_given_to_a_stand_in_costs_nothing(batch: Batch) -> None:
    report = batch.reports["huge_n"]
    assert report.score == FULL  # it caught the stand-in's refusal, then did the honest thing


@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_huge_n_with_a_tuple_or_string_prompt_costs_nothing_either(batch: Batch) -> None:
    """Round 4: the bound held for a list prompt only, and a tuple made the grading process append 10**10
    tokens (memory without limit, on the trusted side). Any sized prompt is bounded, anything else refused."""
    assert batch.reports["huge_n_tuple"].score == FULL


@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_flood_of_function_references_is_refused_before_any_proxy_is_built(batch: Batch) -> None:
    report = batch.reports["references"]
    text = feedback(report, "call_order_is_sequential")
    assert f"cannot be graded (more than {LIMITS.max_message_functions} functions in one message)" in text
    assert full_marks_except(report, "call_order_is_sequential")


# -- entry: text from the worker is valid UTF-8; item 12: no trusted traceback crosses to the worker -------------------
@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_lone_surrogates_never_reach_the_report(batch: Batch) -> None:
    report = batch.reports["surrogates"]
    for text in strings(asdict(report)):
        text.encode("utf-8")  # raises on a lone surrogate
    assert "byte \ufffd in token \ufffd" in feedback(report, "request_time")
    assert any("a lone surrogate: \ufffd" in error for error in report.errors)
    assert full_marks_except(report, "request_time")


@pytest.mark.slow  # reads the module's batch: about a minute of hanging learners per level
def test_a_trusted_traceback_never_reaches_the_learner(batch: Batch) -> None:
    report = batch.reports["traceback"]
    text = feedback(report, "call_order_is_sequential")
    assert "raised ValueError" in text
    for secret in ("conftest", "suites", str(REPO), 'File "', "Traceback"):
        assert secret not in text
    assert full_marks_except(report, "call_order_is_sequential")


# -- the same through the real commands ------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS)
def test_grade_batch_finishes_with_hostile_learners_among_honest_ones(level: str, tmp_path: Path) -> None:
    """Default limits (5 s a call): two hangs of SLEEP seconds each cost 5 s, and every output is written."""
    folder = tmp_path / "submissions"
    folder.mkdir()
    names = ("honest", "nested_hang", "blocked_write", "surrogates")
    paths = hostile_notebooks(folder)
    for name in names:
        if paths[name].parent != folder:
            (folder / f"{name}.ipynb").write_bytes(paths[name].read_bytes())
    for extra in set(folder.iterdir()) - {folder / f"{n}.ipynb" for n in names}:
        extra.unlink()
    started = time.monotonic()
    env_level = {"GRADER_ISOLATION": level}
    result = _run(
        ["grade", "batch", str(folder), "--out", str(tmp_path / "out"), "--jobs", "2", "--lesson", "decode"],
        env_level,
        SLEEP - 10,
    )
    assert result is not None, f"grade batch did not finish within {SLEEP - 10} s"
    assert result.returncode == 0, result.stderr[-2000:]
    assert time.monotonic() - started < 90
    rows = {r["learner"]: r for r in _csv(tmp_path / "out" / "grades.csv")}
    assert float(rows["honest"]["score"]) == FULL
    assert set(rows) == set(names)
    assert {path.stem for path in (tmp_path / "out" / "feedback").iterdir()} == set(names)


@pytest.mark.slow
def test_the_daemon_survives_a_hung_learner_and_stops_when_asked(daemons: Daemons, tmp_path: Path) -> None:  # noqa: F811
    hung = hostile_notebooks(tmp_path)["nested_hang"]
    daemons.grade(str(SOLUTION))  # cold; starts the daemon
    daemons.wait_until_ready()
    started = time.monotonic()
    result = daemons.grade(str(hung), "--json")
    assert time.monotonic() - started < 60
    report = json.loads(result.stdout)
    assert FULL - 3 < report["score"] < FULL
    assert daemons.log().count(": answered in ") == 1  # the daemon, not a cold grade, answered
    pids = daemons.pids()
    stop = daemons.grade("daemon", "stop")
    assert (stop.returncode, stop.stdout.strip()) == (0, "Stopped 1 daemon(s).")
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


@pytest.mark.slow
def test_grade_daemon_stop_does_not_wait_for_a_hung_learner(daemons: Daemons, tmp_path: Path) -> None:  # noqa: F811
    """Every call_order_is_sequential test hangs (a minute of grading at 5 s a call): stop ends the daemon at once."""
    hung = decode_notebook(
        tmp_path, "all_hang", call_order_is_sequential=NESTED_HANG.replace("if list(prompt) == [7, 8]:", "if True:")
    )
    daemons.grade(str(SOLUTION))
    daemons.wait_until_ready()
    pids = daemons.pids()
    client = subprocess.Popen(
        ["grade", str(hung), "--json"], cwd=REPO, env=daemons.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        time.sleep(4)  # the daemon is in the hanging tests now
        started = time.monotonic()
        stop = daemons.grade("daemon", "stop")
        assert (stop.returncode, stop.stdout.strip()) == (0, "Stopped 1 daemon(s)."), stop.stdout
        assert time.monotonic() - started < 10
        assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    finally:
        client.kill()
        client.wait()


def _run(command: list[str], env: dict[str, str], seconds: float) -> Any:
    try:
        return subprocess.run(
            command, check=False, capture_output=True, text=True, cwd=REPO, timeout=seconds, env={**os.environ, **env}
        )
    except subprocess.TimeoutExpired:
        return None


def _csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# -- the channel's guard, end to end in one process ------------------------------------------------------------------
def pair(handler: Any, limits: Limits = LIMITS) -> tuple[Endpoint, Endpoint]:
    """The grader's guarded end (A) and a worker's end (B), which answers A's calls with ``handler(B, message)``."""
    a_to_b_r, a_to_b_w = os.pipe()
    b_to_a_r, b_to_a_w = os.pipe()
    a = Endpoint(b_to_a_r, a_to_b_w, lambda m: None, guard=guard(limits))
    b = Endpoint(a_to_b_r, b_to_a_w, lambda m: handler(b, m))

    def serve() -> None:
        while (m := b.receive())["t"] != "bye":
            b.answer(m)

    threading.Thread(target=serve, daemon=True).start()
    return a, b


def call_first_argument(b: Endpoint, message: dict[str, Any]) -> Any:
    args = b.decode(message.get("args") or [])
    return args[0](*args[1:])


def test_a_lent_function_is_revoked_when_its_call_returns() -> None:
    kept: list[Any] = []

    def handler(b: Endpoint, message: dict[str, Any]) -> Any:
        if message["name"] == "keep":
            kept.extend(b.decode(message["args"]))
        return kept[0]()

    a, _ = pair(handler)
    assert a.request({"t": "call", "name": "keep", "args": [lambda: 7]}) == 7
    assert a._exports == {}  # nothing lent outlives its call
    with pytest.raises(RemoteError) as err:
        a.request({"t": "call", "name": "later"})
    assert "LentFunctionExpired: this function was lent for one call only, and that call has returned" in str(err.value)


def test_a_grader_exception_crosses_without_traceback_or_paths() -> None:
    a, _ = pair(call_first_argument)

    def stand_in() -> None:
        raise FileNotFoundError(f"{REPO}/exercises/decode/suites/conftest.py and ~/x and ./y are missing")

    with pytest.raises(RemoteError) as err:
        a.request({"t": "call", "name": "f", "args": [stand_in]})
    assert "conftest" not in err.value.message and str(REPO) not in err.value.message
    assert "FileNotFoundError: <path> and <path> and <path> are missing" in err.value.message
    assert "Traceback" not in err.value.message
    division = "unsupported operand type(s) for /: 'int' and 'str'; 1/2"
    assert without_paths(division) == division


def test_call_depth_is_bounded_on_the_graders_side() -> None:
    a, _ = pair(call_first_argument, replace(LIMITS, max_call_depth=3))
    entered = [0]

    def down() -> int:
        entered[0] += 1
        return int(a.request({"t": "call", "name": "f", "args": [down]}))

    with pytest.raises(RemoteError) as err:
        down()
    assert entered[0] == 3 + 1  # three calls in flight; the fourth is refused
    assert CallDepthExceeded.__name__ in err.value.message


def test_a_nested_callback_keeps_the_outer_calls_deadline() -> None:
    def handler(b: Endpoint, message: dict[str, Any]) -> Any:
        if message["name"] == "sleep":
            time.sleep(SLEEP)
        return call_first_argument(b, message)

    a, _ = pair(handler)
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        a.request(
            {"t": "call", "name": "f", "args": [lambda: a.request({"t": "call", "name": "sleep"})]}, started + 0.5
        )
    assert time.monotonic() - started < 2


def test_a_write_nobody_reads_ends_at_the_deadline() -> None:
    r, w = os.pipe()
    a = Endpoint(os.open(os.devnull, os.O_RDONLY), w, lambda m: None, guard=guard(LIMITS))
    started = time.monotonic()
    with pytest.raises(ChannelTimeout):
        a.send({"t": "x", "data": "y" * 200_000}, started + 0.5)
    assert time.monotonic() - started < 2
    os.close(r)


SIZES = {  # a message from the worker, and why it is refused
    "functions": (
        '{"t":"return","id":1,"value":[' + ",".join(['{"$fn":1}'] * 50_000) + "]}",
        "more than 16 functions in one message",
    ),
    "values": (
        '{"t":"return","id":1,"value":[' + ",".join(["0"] * 200_000) + "]}",
        "more than 100000 values in one message",
    ),
    "text": ('{"t":"return","id":1,"value":"' + "x" * 70_000 + '"}', "a text longer than 65536 characters"),
}


@pytest.mark.parametrize("kind", SIZES)
def test_sizes_are_counted_on_receipt(kind: str) -> None:
    line, reason = SIZES[kind]
    r, w = os.pipe()
    a = Endpoint(r, os.open(os.devnull, os.O_WRONLY), lambda m: None, max_bytes=4 << 20, guard=guard(LIMITS))
    threading.Thread(target=lambda: os.write(w, line.encode() + b"\n"), daemon=True).start()
    with pytest.raises(BadMessage, match=re.escape(reason)):
        a.receive()


def test_received_text_is_valid_utf8() -> None:
    r, w = os.pipe()
    a = Endpoint(r, os.open(os.devnull, os.O_WRONLY), lambda m: None, guard=guard(LIMITS))
    os.write(w, b'{"t":"x","\\udcff":["\\udcff",{"k":"a\\ud800b"}],"ok":"\\ud83d\\ude00"}\n')
    os.write(w, '{"t":"y","raw":"\udcff"}\n'.encode("utf-8", "surrogatepass"))
    assert a.receive() == {"t": "x", "\ufffd": ["\ufffd", {"k": "a\ufffdb"}], "ok": "\U0001f600"}
    assert a.receive() == {"t": "y", "raw": "\ufffd"}


# -- the Decode stand-ins: bounded, and linear in what they build ------------------------------------------------------
def decode_conftest() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "decode_conftest", REPO / "exercises" / "decode" / "suites" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_decode_stand_ins_refuse_more_than_they_were_built_for() -> None:
    from grader.config import STAND_IN_MAX_TOKENS

    decode = decode_conftest()
    for stand_in in (
        *decode.wrong_generates().values(),
        decode.GenerateStandIn(None, "is correct", base=lambda f, p, n: p),
    ):
        with pytest.raises(ValueError, match=f"at most {STAND_IN_MAX_TOKENS} tokens"):
            stand_in(lambda seq: 0, [], 50_000)
    record = decode.NextToken()
    with pytest.raises(ValueError, match=f"more than {STAND_IN_MAX_TOKENS} tokens in all"):
        for _ in range(STAND_IN_MAX_TOKENS):
            record(list(range(100)))
    wrong = decode.wrong_generates()["prompt_only"]
    assert wrong(lambda seq: 0, [1, 2], 60) == decode.simulate([1, 2], 60)[0]  # the same tokens as token_for gives
    started = time.process_time()  # this process's CPU: a loaded machine (the suite's processes) does not move it
    wrong(lambda seq: 0, [1, 2], STAND_IN_MAX_TOKENS - 2)
    assert time.process_time() - started < 1  # linear: 10,000 tokens (the quadratic loop took minutes at 50,000)
