"""Hostile and broken submissions: the sandbox holds, nothing is lost, every learner gets a clear result.

Attacks whose outcome depends on the isolation level run under every level of ``sandbox.LEVELS`` that runs
here (:func:`level_params`: today ``bubblewrap``, namespaces, and ``process``, forced as
``GRADER_ISOLATION=process`` would). What a level promises is read from the
same code that chooses it (:func:`grader.execute.sandbox.launch`), so each test asserts the exact outcome
for the level in use: the attack fails where the level defends against it, and where it does not (the
process level when the grader cannot drop to an unprivileged user) the report says so, as SECURITY.md
explains. Every attack is bounded: at most 30 processes sleeping at most a minute, a few MB of files,
20 MB of output, timeouts of a few seconds.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.config import DEFAULT_LIMITS, Limits, WorkerMode, cache_dir
from grader.environment import ISOLATION_ENV
from grader.errors import WorkerCrashed
from grader.execute import bubblewrap, sandbox
from grader.execute.levels import DROP_NONE, is_root
from grader.execute.limits import OOM_SCORE_ADJ
from grader.execute.runner import Workers
from grader.execute.worker import LearnerProcess, exit_reason, start_worker
from grader.execute.zygote import Zygote
from grader.lessons import load_lesson
from grader.model import Report, Submission
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, notebook, run_grade

HOSTILE = Path(__file__).resolve().parent / "fixtures" / "hostile"
LESSONS = ("--lessons", str(FIXTURE_LESSONS))
ANSWER, SQUARE, SUM = SQUARES_SOLVED
BWRAP_PROBLEM = sandbox.bwrap_problem()
#: What a worker level's name adds to an isolation level's for workers forked from one warm zygote in turn.
ZYGOTE = "+zygote"


def level_params(zygotes: bool = False) -> list[Any]:
    """Every isolation level of :data:`grader.execute.sandbox.LEVELS` (the one table: a level added there is
    exercised here without a word changed), each skipped, with the reason, where it cannot run here; with
    ``zygotes``, also each level that can fork workers from a zygote, as ``<level>+zygote``: every worker forked
    from one warm zygote in turn, as a batch's grading processes do (the others spawn an interpreter each)."""
    params = []
    for name, row in sandbox.LEVELS.items():
        problem = row.problem()
        skip = pytest.mark.skipif(problem is not None, reason=f"{name}: {problem}")
        params.append(pytest.param(name, marks=skip, id=name))
        if zygotes and row.zygote:
            params.append(pytest.param(name + ZYGOTE, marks=skip, id=name + ZYGOTE))
    return params


LEVELS = level_params()
#: How workers can be started: the levels above, and each that forks its workers from a zygote.
WORKER_LEVELS = level_params(zygotes=True)
#: Those of them whose workers are forked from a zygote.
ZYGOTE_LEVELS = [p for p in WORKER_LEVELS if p.values[0].endswith(ZYGOTE)]
#: The level that runs anywhere (sandbox.LEVELS's last resort), for tests whose outcome is the same at every level.
ANY_LEVEL = list(sandbox.LEVELS)[-1]


@dataclass(frozen=True)
class Defences:
    """What the isolation level in use defends against (computed as the grader computes it)."""

    level: str
    isolation: str
    namespaces: bool
    own_uid: bool

    @property
    def protected(self) -> bool:
        """Learner code cannot signal the grader, reach its private files, or leave a process behind."""
        return self.namespaces or self.own_uid

    @property
    def limits_processes(self) -> bool:
        """RLIMIT_NPROC binds: learner code runs as an unprivileged user (root ignores the limit)."""
        return self.own_uid or os.geteuid() != 0


def isolation_of(level: str) -> str:
    """The isolation level of a worker level (``bubblewrap+zygote``: ``bubblewrap``)."""
    return level.removesuffix(ZYGOTE)


def mode_of(level: str) -> WorkerMode:
    """How workers run at a test's ``level`` (``<level>+zygote``: that level, forked from zygotes)."""
    return WorkerMode(isolation=isolation_of(level))


def zygotes(level: str, count: int, limits: Limits) -> list[Zygote]:
    """``count`` warm zygotes for a ``<level>+zygote`` level (each grades one learner at a time), else none."""
    if not level.endswith(ZYGOTE):
        return []
    started = [Zygote.start(limits, mode_of(level)) for _ in range(count)]
    assert all(started), "bubblewrap works here, so a zygote must start"
    return started  # type: ignore[return-value]


def defences(level: str) -> Defences:
    level = isolation_of(level)
    spec = sandbox.launch(Path(tempfile.gettempdir()) / "grader-worker-probe", Limits(), WorkerMode(isolation=level))
    return Defences(level, spec.isolation, sandbox.LEVELS[spec.level].sandbox, spec.drop != DROP_NONE)


@pytest.fixture(scope="module", params=LEVELS)
def level(request: pytest.FixtureRequest) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ISOLATION_ENV, request.param)  # for the `grade` commands these tests start
        yield request.param


@pytest.fixture(scope="module", params=WORKER_LEVELS)
def worker_level(request: pytest.FixtureRequest) -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(ISOLATION_ENV, isolation_of(request.param))
        yield request.param


def write_nb(folder: Path, name: str, cells: list[Any], lesson: str | None = "squares") -> Path:
    path = folder / f"{name}.ipynb"
    path.write_text(nbformat.writes(notebook(cells, lesson)), encoding="utf-8")
    return path


def marker() -> str:
    """A sleep duration nobody else uses: it names the processes an attack starts (seen in /proc/*/cmdline)."""
    return f"59.{random.randrange(10**8, 10**9)}"


def processes_with(mark: str) -> list[int]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    if mark.encode() in f.read():
                        found.append(int(entry.name))
            except OSError:
                continue
    return found


def kill_marked(mark: str) -> None:
    """Clean up after a level that does not sweep (so the shared machine keeps no sleeper)."""
    for pid in processes_with(mark):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def by_id(report: Report | dict[str, Any]) -> dict[str, Any]:
    questions = report["questions"] if isinstance(report, dict) else [asdict(q) for q in report.questions]
    return {q["id"]: q for q in questions}


def scores(report: Report | dict[str, Any]) -> dict[str, float]:
    return {qid: q["score"] for qid, q in by_id(report).items()}


def feedback(report: Report | dict[str, Any], qid: str) -> str:
    return " ".join(by_id(report)[qid]["feedback"])


def grade_cli(path: Path, *extra: str) -> dict[str, Any]:
    result = run_grade(str(path), *LESSONS, "--json", *extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def shared_tmp() -> Iterator[Path]:
    """A temp folder every user may traverse (as /tmp is), so the process level may drop privileges in it."""
    folder = Path(tempfile.mkdtemp(prefix="grader-hostile-"))
    folder.chmod(0o711)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- one worker probes the walls from inside --------------------------------------------------------------------
PROBE = """
import os, socket, subprocess, sys, threading, time
probe = {{}}
reads = {{}}
for path in {reads!r}:
    try:
        with open(path, "rb") as f:
            f.read(1)
        reads[path] = "read"
    except Exception as err:
        reads[path] = type(err).__name__
probe["reads"] = reads
writes = {{}}
for path in {writes!r}:
    try:
        with open(path, "a") as f:
            f.write("hacked\\n")
        writes[path] = "written"
    except Exception as err:
        writes[path] = type(err).__name__
probe["writes"] = writes
try:
    os.kill({grader_pid}, 0)
    probe["signal_grader"] = "allowed"
except Exception as err:
    probe["signal_grader"] = type(err).__name__
probe["environ"] = dict(os.environ)
probe["oom_score_adj"] = open("/proc/self/oom_score_adj").read().strip()
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    probe["connect"] = "connected"
except Exception as err:
    probe["connect"] = type(err).__name__
probe["interfaces"] = sorted(name for _, name in socket.if_nameindex())
"""

PROBE_PROCESSES = """
SLEEP = ["sleep", "{mark}"]
child = os.fork()
if child == 0:
    os.execvp("sleep", SLEEP)
daemon = os.fork()
if daemon == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", SLEEP)
    os._exit(0)
os.waitpid(daemon, 0)
spawned = []
for _ in range(30):
    try:
        spawned.append(subprocess.Popen(SLEEP))
    except OSError as err:
        probe["spawn_error"] = type(err).__name__
        break
probe["spawned"] = len(spawned)
"""

PROBE_LATE_WRITES = """
late = [{late!r}, os.path.join(os.getcwd(), "late.txt")]
def scribble():
    while True:
        for path in late:
            try:
                with open(path, "a") as f:
                    f.write("x")
            except OSError:
                pass
        time.sleep(0.02)
threading.Thread(target=scribble, daemon=True).start()
time.sleep(0.1)
probe["workdir"] = os.getcwd()
"""


@dataclass
class Probe:
    values: dict[str, Any]
    defences: Defences
    reads: dict[str, str]
    private: list[str]
    grades: Path
    grades_before: str
    left_processes: list[int]
    late_size: tuple[int, int]
    workdir: Path
    isolation: str


@pytest.fixture(scope="module")
def probe(worker_level: str, shared_tmp: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    level = worker_level
    private = tmp_path_factory.mktemp(f"private-{level}")  # 0700, like an instructor's course folder
    lessons = private / "lessons"
    shutil.copytree(FIXTURE_LESSONS, lessons)
    results = private / "results"
    results.mkdir()
    grades = results / "grades.csv"
    grades.write_text("learner,score\nalice,5\n")
    other = private / "submitted" / "bob.ipynb"
    other.parent.mkdir()
    other.write_text("{}")
    private_reads = [
        str(lessons / "squares" / "suites" / "test_squares.py"),
        str(lessons / "squares" / "solution.ipynb"),
    ]
    repo_reads = [
        str(REPO / "exercises" / "decode" / "lesson.toml"),
        str(REPO / "solutions" / "decode.ipynb"),
        str(FIXTURE_LESSONS / "squares" / "suites" / "test_squares.py"),
    ]
    mark = marker()
    kept_examples = cache_dir() / "examples" / f"probe-{mark}.json"  # where the grader keeps examples (README)
    kept_examples.parent.mkdir(parents=True, exist_ok=True)
    kept_examples.write_text("{}")
    late = Path("/tmp") / f"grader-hostile-{mark}.late"
    listener = socket.create_server(("127.0.0.1", 0))
    cells = [
        PROBE.format(
            reads=private_reads + repo_reads,
            writes=[str(p) for p in (grades, other, lessons / "squares" / "suites" / "test_hacked.py", kept_examples)],
            grader_pid=os.getpid(),
            port=listener.getsockname()[1],
        ),
        PROBE_LATE_WRITES.format(late=str(late)),
        PROBE_PROCESSES.format(mark=mark),  # last: it uses up the process limit
    ]
    path = write_nb(shared_tmp, f"probe-{level}", cells)
    limits = replace(DEFAULT_LIMITS, timeout=20.0, max_processes=12)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GRADER_TEST_SECRET", "xyzzy-secret")
        mp.setattr(tempfile, "tempdir", str(shared_tmp))
        started = zygotes(level, 1, limits)
        worker, execution = start_worker(read_submission(path), limits, mode_of(level), *started)
    try:
        assert not execution.cell_errors, execution.cell_errors
        values = worker.value("probe")
    finally:
        worker.close()
        listener.close()
        for zygote in started:
            zygote.close()
    left = processes_with(mark)
    sizes = (late.stat().st_size if late.exists() else -1,)
    time.sleep(0.3)  # not a wait for something to happen: a window (15 of the scribbler's beats) in which nothing may
    sizes += (late.stat().st_size if late.exists() else -1,)
    yield Probe(
        values,
        defences(level),
        values["reads"],
        private_reads,
        grades,
        "learner,score\nalice,5\n",
        left,
        sizes,
        worker.workdir,
        execution.isolation,
    )
    kill_marked(mark)
    late.unlink(missing_ok=True)
    kept_examples.unlink(missing_ok=True)


def test_the_report_names_the_isolation_level(probe: Probe) -> None:
    assert probe.isolation == probe.defences.isolation
    if probe.defences.namespaces:
        assert probe.isolation.startswith("namespaces (bubblewrap)")
    else:
        assert probe.isolation.startswith("process limits")
        assert "network open" in probe.isolation
    if not probe.defences.protected:
        assert "can read and write what the grader can and signal it" in probe.isolation


def test_hidden_suites_and_solutions_cannot_be_read(probe: Probe) -> None:
    if probe.defences.namespaces:  # nothing of the repository or the course folder is even there
        assert set(probe.reads.values()) == {"FileNotFoundError"}, probe.reads
    elif probe.defences.own_uid:  # an instructor's private folder is private; world-readable files are not
        assert {probe.reads[p] for p in probe.private} == {"PermissionError"}, probe.reads
    else:
        assert set(probe.reads.values()) == {"read"}, probe.reads


def test_grades_and_other_submissions_cannot_be_written(probe: Probe) -> None:
    writes = probe.values["writes"]
    if probe.defences.protected:
        assert "written" not in writes.values(), writes
        assert probe.grades.read_text() == probe.grades_before
        assert not (probe.grades.parent.parent / "lessons" / "squares" / "suites" / "test_hacked.py").exists()
        kept_examples = next(p for p in writes if p.endswith(".json"))
        assert Path(kept_examples).read_text() == "{}"  # the examples every learner is tested on
    else:
        assert set(writes.values()) == {"written"}


def test_the_grader_cannot_be_signalled(probe: Probe) -> None:
    expected = (
        "ProcessLookupError"  # the grader is in no namespace the learner can see
        if probe.defences.namespaces
        else "PermissionError"
        if probe.defences.own_uid
        else "allowed"
    )
    assert probe.values["signal_grader"] == expected


def test_the_environment_is_scrubbed(probe: Probe) -> None:
    environ = probe.values["environ"]
    assert "GRADER_TEST_SECRET" not in environ and "xyzzy-secret" not in json.dumps(environ)
    assert set(environ) <= set(sandbox.worker_env(probe.workdir)) | {"PWD", "SHLVL", "_", "LC_CTYPE"}


def test_no_network_in_namespaces(probe: Probe) -> None:
    if probe.defences.namespaces:
        assert probe.values["interfaces"] == ["lo"]
        assert probe.values["connect"] == "ConnectionRefusedError"  # its own loopback, not the grader's
    else:
        assert probe.values["connect"] == "connected"  # the report said "network open"


def test_the_learner_is_first_in_line_for_the_out_of_memory_killer(probe: Probe) -> None:
    assert probe.values["oom_score_adj"] == str(OOM_SCORE_ADJ) == "1000"
    with open("/proc/self/oom_score_adj", encoding="ascii") as ours:
        assert ours.read().strip() != "1000"  # the grader's own process keeps the machine's default


def test_the_number_of_processes_is_limited(probe: Probe) -> None:
    if probe.defences.limits_processes:
        assert probe.values["spawned"] < 12 and probe.values["spawn_error"] == "BlockingIOError"
    else:
        assert probe.values["spawned"] == 30


def test_no_process_outlives_grading(probe: Probe) -> None:
    if probe.defences.protected:
        assert probe.left_processes == []
    else:  # only the daemon that left the session and the process tree survives (SECURITY.md)
        assert len(probe.left_processes) == 1


def test_no_file_outlives_grading_and_late_writes_stop(probe: Probe) -> None:
    assert not probe.workdir.exists()
    before, after = probe.late_size
    assert before == after  # the background thread died with the worker
    if probe.defences.protected:
        assert before == -1  # a private /tmp, or the uid's files swept away
    else:
        assert before > 0


def test_killing_the_parent_does_not_stop_grading(
    level: str, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(shared_tmp))  # where a killed grader leaves its worker's folder
    path = write_nb(
        shared_tmp, f"killer-{level}", [ANSWER, "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", SQUARE, SUM]
    )
    result = run_grade(str(path), *LESSONS, "--json")
    if defences(level).protected:  # bubblewrap: the parent is the namespace's init; else: another user
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["score"] == 5.0
    else:
        assert result.returncode == -signal.SIGKILL  # SECURITY.md: same user, no namespaces


def test_secrets_in_the_graders_environment_stay_secret(
    level: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRADER_TEST_SECRET", "xyzzy-grader-secret")
    spy = (
        "import os\nfound = [k for k, v in os.environ.items() if 'xyzzy' in v]\n"
        "for pid in filter(str.isdigit, os.listdir('/proc')):\n"
        "    try:\n"
        "        if b'xyzzy-grader' in open(f'/proc/{pid}/environ', 'rb').read():\n"
        "            found.append(pid)\n"
        "    except OSError:\n"
        "        pass\n"
        "if found:\n"
        "    raise RuntimeError(f'secret seen in {found}')"
    )
    report = grade_cli(write_nb(tmp_path, "spy", [spy, *SQUARES_SOLVED]))
    leaked = any("secret seen" in e for e in report["errors"])
    assert leaked is not defences(level).protected
    assert report["score"] == 5.0


def test_the_sandbox_shows_the_folders_a_pth_file_adds_to_the_workers_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv may get its packages from a folder outside it, named in a ``.pth`` file (tests/test_package.py's
    venv does): the worker's interpreter imports from there, so its sandbox must show that folder too."""
    site_dir, extra, other = tmp_path / "site-packages", tmp_path / "packages", tmp_path / "elsewhere"
    for folder in (site_dir, extra, other):
        folder.mkdir()
    lines = [f"# {other}", str(extra), "import os", f"{tmp_path}/missing", "", "../elsewhere"]
    (site_dir / "packages.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(bubblewrap.site, "getsitepackages", lambda: [str(site_dir)])
    assert bubblewrap._pth_dirs([str(site_dir)]) == {extra.resolve(), other.resolve()}
    shown = bubblewrap._visible_dirs()
    assert all(any(d == f or d in f.parents for d in shown) for f in (extra.resolve(), other.resolve())), shown


@pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"no bubblewrap: {BWRAP_PROBLEM}")
def test_a_python_reached_through_another_venvs_links_starts_in_the_sandbox(
    shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.10's ``venv``, run by another venv's Python, links the new venv's ``python`` to that Python, not
    to the interpreter: the worker's sandbox (its own empty /tmp) must hold each link on the way, or bwrap cannot
    start it (tests/test_package.py failed so on 3.10)."""
    (shared_tmp / "other" / "bin").mkdir(parents=True)
    (shared_tmp / "venv" / "bin").mkdir(parents=True)
    (shared_tmp / "other" / "bin" / "python3").symlink_to(os.path.realpath(sys.executable))
    (shared_tmp / "other" / "bin" / "python").symlink_to("python3")
    (shared_tmp / "venv" / "bin" / "python").symlink_to(shared_tmp / "other" / "bin" / "python")
    monkeypatch.setattr(sys, "executable", str(shared_tmp / "venv" / "bin" / "python"))
    links = bubblewrap._links_to_python(bubblewrap._visible_dirs())
    assert [link.name for link, _ in links] == ["python", "python", "python3"]
    workdir = shared_tmp / "work"
    workdir.mkdir(mode=0o777)
    argv = [*bubblewrap.bwrap_argv(workdir, Limits(), is_root()), sys.executable, "-I", "-S", "-c", "pass"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, cwd=workdir)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"no bubblewrap: {BWRAP_PROBLEM}")
def test_lessons_inside_a_visible_folder_are_masked(shared_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = shared_tmp / "site"  # stands for a Python installation that holds a course package
    (site / "lessons" / "squares").mkdir(parents=True)
    (site / "lessons" / "squares" / "lesson.toml").write_text("secret")
    (site / "solutions").mkdir()
    (site / "solutions" / "squares.ipynb").write_text("secret")
    (site / "public.txt").write_text("public")
    monkeypatch.setenv("GRADER_LESSONS", str(site / "lessons"))
    shown = bubblewrap._visible_dirs()
    monkeypatch.setattr(bubblewrap, "_visible_dirs", lambda: [*shown, site])
    reader = (
        "seen = {}\nfor name in ('public.txt', 'lessons/squares/lesson.toml', 'solutions/squares.ipynb'):\n"
        f"    try:\n        seen[name] = open({str(site)!r} + '/' + name).read()\n"
        "    except OSError as err:\n        seen[name] = type(err).__name__"
    )
    worker, _ = start_worker(
        read_submission(write_nb(shared_tmp, "masked", [reader])), DEFAULT_LIMITS, WorkerMode(isolation="bubblewrap")
    )
    with worker:
        assert worker.value("seen") == {
            "public.txt": "public",
            "lessons/squares/lesson.toml": "FileNotFoundError",
            "solutions/squares.ipynb": "FileNotFoundError",
        }


# -- a batch of hostile notebooks, graded together: each gets its own clear result --------------------------------
SPAWNER = """
import os, subprocess
SLEEP = ["sleep", "{mark}"]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", SLEEP)
    os._exit(0)
calls = []
def square(x):
    if len(calls) < 3:
        calls.append(subprocess.Popen(SLEEP))
    return x * x
"""
FORGED = """
class Liar(float):
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __float__(self):
        return 9.0
class Agreeable(str):
    def __eq__(self, other):
        return True
    def upper(self):
        return "A"
class Truthy:
    def __bool__(self):
        return True
    def __eq__(self, other):
        return True
    def __float__(self):
        return 14.0
answer_even = Agreeable("B")
def square(x):
    return Liar(x + 1)
def sum_of_squares(xs):
    return Truthy()
"""
MONKEYPATCH = """
import builtins, math, sys, time, types
math.isclose = lambda *args, **kwargs: True
builtins.abs = lambda x: 0
time.time = time.monotonic = time.perf_counter = lambda: 0.0
fake = types.ModuleType("pytest")
fake.approx = lambda expected, *args, **kwargs: type("Any", (), {"__eq__": lambda self, other: True})()
sys.modules["pytest"] = fake
def square(x):
    return x + x
"""
CHANNEL = """
answer_even = {"A", "B"}
def square(x):
    nested = x * x
    for _ in range(100):
        nested = [nested]
    return nested
def sum_of_squares(xs):
    return [float(sum(x * x for x in xs))] * 300_000
"""
SIGTERM_LOOP = """
import signal, subprocess
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "{mark}"])
while True:
    pass
"""


def batch_notebooks(mark: str) -> dict[str, list[Any]]:
    return {
        "clean": list(SQUARES_SOLVED),
        "loop_top": [ANSWER, "while True:\n    pass", SQUARE, SUM],
        "loop_function": [
            ANSWER,
            (
                "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                "def square(x):\n    while True:\n        pass"
            ),
            SUM,
        ],
        "sigterm_loop": [ANSWER, SIGTERM_LOOP.format(mark=mark), SQUARE, SUM],
        "sys_exit": [ANSWER, "import sys\nsys.exit(3)", SQUARE, SUM],
        "os_exit": [ANSWER, "import os\nos._exit(3)", SQUARE, SUM],
        "segfault": [ANSWER, "import ctypes\nctypes.string_at(0)", SQUARE, SUM],
        "memory": [*SQUARES_SOLVED, "hog = bytearray(8 * 1024 ** 3)"],
        "flood": ["import sys\nfor _ in range(400):\n    sys.stdout.write('x' * 50_000 + '\\n')", *SQUARES_SOLVED],
        "input": ["name = input('Your name? ')", *SQUARES_SOLVED],
        "big_file": ["open('big.bin', 'wb').write(b'x' * 5 * 1024 * 1024)", *SQUARES_SOLVED],
        "open_files": ["handles = [open('same.txt', 'w') for _ in range(300)]", *SQUARES_SOLVED],
        "forged": [FORGED],
        "monkeypatch": [ANSWER, MONKEYPATCH, SUM],
        "channel": [CHANNEL],
        "spawner": [ANSWER, SPAWNER.format(mark=mark), SUM],
        "borrow": [ANSWER, "def square(x):\n    return sum_of_squares([x])"],
    }


@dataclass
class Batch:
    reports: dict[str, Report]
    left_processes: list[int]
    left_workdirs: list[str]


@pytest.fixture(scope="module")
def batch(worker_level: str, shared_tmp: Path) -> Iterator[Batch]:
    level = worker_level
    mark = marker()
    folder = shared_tmp / f"batch-{level}"
    folder.mkdir()
    folder.chmod(0o711)
    workdirs = shared_tmp / f"workdirs-{level}"
    workdirs.mkdir()
    workdirs.chmod(0o711)
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    limits = replace(DEFAULT_LIMITS, timeout=3.0, call_timeout=1.0, max_file_mb=4)
    submissions = {
        name: read_submission(write_nb(folder, name, cells)) for name, cells in batch_notebooks(mark).items()
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tempfile, "tempdir", str(workdirs))
        idle: queue.Queue[Zygote | None] = queue.Queue()
        for zygote in zygotes(level, 4, limits) or [None] * 4:
            idle.put(zygote)

        def grade(submission: Submission) -> Report:
            zygote = idle.get()  # four threads, four zygotes: each grades one learner at a time
            workers = Workers(limits, mode_of(level), zygote)  # its own lender of the solution, closed with it
            try:
                return grade_submission(submission, lesson, suites, workers, lent_solution(lesson))
            finally:
                workers.close()
                idle.put(zygote)

        with SuiteSession(lesson) as suites, ThreadPoolExecutor(4) as pool:
            futures = {name: pool.submit(grade, sub) for name, sub in submissions.items()}
            reports = {name: future.result() for name, future in futures.items()}
        while not idle.empty():
            if (zygote := idle.get()) is not None:
                zygote.close()
    yield Batch(reports, processes_with(mark), os.listdir(workdirs))
    kill_marked(mark)


TIMED_OUT = (
    "Your notebook ran longer than 3 s and was stopped in cell 2: `{}`. Look there for a loop that never "
    "ends or a very long computation, then run the notebook again."
)
WHOLE_NOTEBOOK = {  # notebook: (score, errors), exactly as the learner reads them
    "clean": (5.0, ()),
    "loop_top": (0.0, (TIMED_OUT.format("while True:"),)),
    "sigterm_loop": (0.0, (TIMED_OUT.format("while True:"),)),
    "sys_exit": (
        5.0,
        (
            "Cell 2 raised SystemExit: 3; exit() and sys.exit() do not stop grading, so remove them "
            "(`import sys`); the cells after it still ran.",
        ),
    ),
    "os_exit": (
        0.0,
        (
            "The process running your notebook stopped (it exited with status 3) in cell 2: `import os`. "
            "Look there for exit(), os._exit() or code that ends Python, then run the notebook again.",
        ),
    ),
    "segfault": (
        0.0,
        (
            "The process running your notebook stopped (it crashed Python with a segmentation fault "
            "(SIGSEGV)) in cell 2: `import ctypes`. Look there for ctypes or a C extension given bad "
            "input, then run the notebook again.",
        ),
    ),
    "memory": (
        5.0,
        (
            f"Cell 4 raised MemoryError: it needed more than the {DEFAULT_LIMITS.memory_mb} MB of memory a "
            "notebook may use; use smaller data there (`hog = bytearray(8 * 1024 ** 3)`); the cells after it "
            "still ran.",
        ),
    ),
    "flood": (5.0, ()),
    "big_file": (
        5.0,
        (
            "Cell 1 raised OSError: [Errno 27] File too large: a notebook may write files of up to 4 MB "
            "(`open('big.bin', 'wb').write(b'x' * 5 * 1024 * 1024)`); the cells after it still ran.",
        ),
    ),
    "open_files": (
        5.0,
        (
            f"Cell 1 raised OSError: [Errno 24] Too many open files: 'same.txt': a notebook may have "
            f"{DEFAULT_LIMITS.max_open_files} files open at once (`handles = [open('same.txt', 'w') for _ in "
            "range(300)]`); the cells after it still ran.",
        ),
    ),
    "input": (
        5.0,
        (
            "Cell 1 raised EOFError: input() gets no answer while grading: give your variables values in code "
            "instead. (`name = input('Your name? ')`); the cells after it still ran.",
        ),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", WHOLE_NOTEBOOK)
def test_each_notebook_gets_its_own_exact_result(name: str, batch: Batch) -> None:
    """A loop, SIGTERM ignored, sys.exit, os._exit, a segfault, a memory hog, a big file, too many open files,
    a 20 MB output flood and input() each end in a result naming the cell and what to do, while the clean
    notebook graded beside them gets 5 / 5."""
    report = batch.reports[name]
    assert (report.score, report.errors) == WHOLE_NOTEBOOK[name]


@pytest.mark.slow
def test_a_loop_in_one_function_ignoring_sigterm_costs_only_that_question(batch: Batch) -> None:
    report = batch.reports["loop_function"]
    assert scores(report) == {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
    assert by_id(report)["square"]["status"] == "error"
    assert "square(3) did not return in time and was stopped: look for a loop that never ends." in feedback(
        report, "square"
    )


@pytest.mark.slow
def test_forged_eq_float_and_bool_earn_nothing(batch: Batch) -> None:
    report = batch.reports["forged"]
    assert scores(report) == {"answer_even": 0.0, "square": 0.0, "sum_of_squares": 0.0}
    assert "answer_even is 'B', which is not right." in feedback(report, "answer_even")
    assert "square(3) returned 4, which is not right (expected 9" in feedback(report, "square")
    assert "sum_of_squares([1, 2, 3]) returned an object of type Truthy, which is not right (expected 14)." in feedback(
        report, "sum_of_squares"
    )


@pytest.mark.slow
def test_monkeypatching_the_worker_changes_nothing_in_the_grader(batch: Batch) -> None:
    report = batch.reports["monkeypatch"]
    assert scores(report) == {"answer_even": 1.0, "square": 0.0, "sum_of_squares": 2.0}
    assert "square(3) returned 6, which is not right (expected 9" in feedback(report, "square")


@pytest.mark.slow
def test_oversized_deep_and_exotic_values_fail_with_a_reason(batch: Batch) -> None:
    report = batch.reports["channel"]
    assert report.score == 0
    assert "answer_even is <a set of 2 items>, which is not right." in feedback(report, "answer_even")
    assert "sent the grader something that cannot be graded (a value nested more than 64 levels deep)" in feedback(
        report, "square"
    )
    assert "sent the grader something that cannot be graded (a message larger than 1024 KB)" in feedback(
        report, "sum_of_squares"
    )


@pytest.mark.slow
def test_children_and_daemons_do_not_outlive_the_batch(worker_level: str, batch: Batch) -> None:
    level = worker_level
    assert batch.reports["spawner"].score == 5.0
    assert batch.left_workdirs == []
    if defences(level).protected:
        assert batch.left_processes == []
    else:  # the spawner's double-forked daemon left the session and the tree (SECURITY.md)
        assert len(batch.left_processes) == 1


def test_crash_messages_say_what_to_do() -> None:
    limits = DEFAULT_LIMITS
    assert exit_reason(-signal.SIGKILL, limits) == (
        "it was killed (SIGKILL), usually because it used too much memory",
        f"Use less memory there (a notebook may use {limits.memory_mb} MB), then run the notebook again.",
    )
    assert exit_reason(-signal.SIGXFSZ, limits)[0] == f"it wrote a file larger than {limits.max_file_mb} MB (SIGXFSZ)"
    assert (
        exit_reason(-signal.SIGXCPU, limits)[1] == "Look there for a loop that never ends, then run the notebook again."
    )


def test_a_worker_that_cannot_start_is_the_machines_fault(shared_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        sandbox,
        "worker_command",
        lambda program="", own_folder=False: (sys.executable, "-c", "print('no IPython here'); raise SystemExit(5)"),
    )
    worker = LearnerProcess(
        read_submission(write_nb(shared_tmp, "any", [ANSWER])), DEFAULT_LIMITS, WorkerMode(isolation=ANY_LEVEL)
    )
    with pytest.raises(WorkerCrashed) as err:
        worker.run_notebook()
    assert str(err.value).startswith(
        "The grader's worker stopped before running your notebook (it exited with status 5; "
        "it said: no IPython here). This is a problem with the grading machine"
    )


@pytest.mark.slow
def test_a_function_cannot_borrow_another_questions_reference(batch: Batch) -> None:
    assert scores(batch.reports["borrow"])["square"] == 0


# -- broken files through the real command ------------------------------------------------------------------------
def _non_utf8() -> bytes:
    return nbformat.writes(notebook(['name = "Zoë"', *SQUARES_SOLVED])).encode("latin-1")


BROKEN: dict[str, Callable[[], bytes]] = {
    "invalid_json": lambda: b'{"cells": [',
    "empty": lambda: b"",
    "binary_garbage": lambda: random.Random(4).randbytes(4096),
    "non_utf8": _non_utf8,
    "missing_cells": lambda: json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode(),
}


@pytest.mark.parametrize("kind", BROKEN)
def test_a_broken_file_is_one_clear_line(kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.ipynb"
    path.write_bytes(BROKEN[kind]())
    result = run_grade(str(path), *LESSONS, "--lesson", "squares", "--json")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"grade: {kind}.ipynb")
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout)["status"] == "ungraded"


def test_a_notebook_without_a_version_is_one_clear_line() -> None:
    result = run_grade(str(HOSTILE / "missing_keys.ipynb"), *LESSONS, "--lesson", "squares")
    assert result.returncode == 1
    assert "no nbformat version" in result.stderr and result.stderr.strip().count("\n") == 0


def test_nbformat_3_is_upgraded_and_graded() -> None:
    assert grade_cli(HOSTILE / "nbformat3.ipynb")["score"] == 5.0


@pytest.mark.slow
def test_tens_of_mb_of_outputs_are_ignored(tmp_path: Path) -> None:
    nb = notebook(list(SQUARES_SOLVED))
    for cell in nb.cells[1:]:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=("y" * 99 + "\n") * 100_000)]
    path = tmp_path / "outputs.ipynb"
    path.write_text(nbformat.writes(nb), encoding="utf-8")
    assert path.stat().st_size > 25_000_000
    assert grade_cli(path)["score"] == 5.0


@pytest.mark.slow
def test_ipython_magics_and_an_early_failing_cell(tmp_path: Path) -> None:
    magics = "%matplotlib inline\n%time x = 1\n!echo shell\nimport numpy as np\nlen?"
    path = write_nb(tmp_path, "magics", ["import no_such_module", magics, "%%time\n" + ANSWER, SQUARE, SUM])
    report = grade_cli(path)
    assert report["score"] == 5.0
    assert report["errors"] == [
        "Cell 1 raised ModuleNotFoundError: No module named 'no_such_module' (`import no_such_module`); "
        "the cells after it still ran."
    ]
