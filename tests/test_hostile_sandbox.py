"""Hostile round 2, the learner's process environment (issue 15, items 7, 10, 11 and 14).

Each test grades a hostile notebook and asserts the invariant it attacks, at every level it applies to
(each of ``sandbox.LEVELS`` spawned, and ``<level>+zygote`` for each level with a zygote, today
``bubblewrap+zygote``: workers forked from one warm zygote in turn, as a batch's grading processes and the
daemon do):

- shared memory (System V segments, message queues, semaphores, memfd) cannot hold memory beyond the
  learner's limit, and nothing of it outlives the learner;
- a learner who squats the names of later learners' working folders changes no later learner's score, in
  one zygote, in one ``grade batch`` grading process, and in the daemon;
- what a learner leaves in ``/tmp``, ``/dev/shm`` and its folder, read-only folders included, is gone
  before the next learner of the same zygote starts;
- ``grade`` and ``grade batch`` sent SIGTERM in the middle of a notebook leave no worker folder, in-flight
  folder or learner process behind.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from grader.config import DEFAULT_LIMITS, Limits
from grader.execute import ipc, sandbox
from grader.execute.runner import Workers
from grader.execute.worker import start_worker
from grader.lessons import load_lesson
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import FIXTURE_LESSONS, SQUARES_SOLVED
from tests.test_batch_resume import group_alive
from tests.test_daemon import Daemons, daemons  # noqa: F401 - a fixture
from tests.test_hostile import (  # noqa: F401 - level, worker_level and shared_tmp are fixtures
    LESSONS,
    WORKER_LEVELS,
    ZYGOTE_LEVELS,
    defences,
    isolation_of,
    kill_marked,
    level,
    marker,
    mode_of,
    processes_with,
    shared_tmp,
    worker_level,
    write_nb,
    zygotes,
)

NOTHING: dict[str, list[int]] = {"shm": [], "msg": [], "sem": []}
#: The levels whose workers are in a sandbox of their own (bubblewrap), spawned and forked from a zygote.
SANDBOX_LEVELS = [p for p in WORKER_LEVELS if sandbox.LEVELS[isolation_of(p.values[0])].sandbox]


def in_turn(worker_level: str, limits: Limits, *learners: tuple[Path, tuple[str, ...]]) -> list[dict[str, Any]]:
    """Run each learner's notebook in turn (all through one zygote at a ``<level>+zygote`` level) and read the
    names given."""
    seen = []
    started = zygotes(worker_level, 1, limits)
    try:
        for path, names in learners:
            worker, execution = start_worker(read_submission(path), limits, mode_of(worker_level), *started)
            with worker:
                assert not execution.cell_errors, execution.cell_errors
                seen.append({name: worker.value(name) for name in names})
    finally:
        for zygote in started:
            zygote.close()
    return seen


def sysv_keys(low: int, high: int) -> dict[str, list[int]]:
    """The System V IPC objects of this IPC namespace whose keys lie in ``[low, high)``, per kind, in key order."""
    found: dict[str, list[int]] = {}
    for kind in NOTHING:
        with open(f"/proc/sysvipc/{kind}") as table:
            rows = [line.split() for line in table.read().splitlines()[1:] if line.strip()]
        found[kind] = sorted(int(row[0]) for row in rows if low <= int(row[0]) < high)  # /proc's order varies
    return found


def ipcrm_keys(low: int, high: int) -> None:
    """Clean up after a grader that left IPC objects behind (so the shared machine keeps none)."""
    for kind, flag in (("shm", "-M"), ("msg", "-Q"), ("sem", "-S")):
        for key in sysv_keys(low, high)[kind]:
            subprocess.run(["ipcrm", flag, str(key)], capture_output=True)


def protected(worker_level: str) -> bool:
    """Whether the level sweeps what a learner leaves in shared places: namespaces, or a uid of the learner's own
    (not the process level as the grader's own user, SECURITY.md "What is not defended")."""
    return defences(isolation_of(worker_level)).protected


@pytest.fixture
def private_tmp(shared_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh temp folder for the grader's worker folders, so that what a learner leaves beside its own stays here."""
    folder = shared_tmp / f"tmp-{time.monotonic_ns()}"
    folder.mkdir()
    folder.chmod(0o711)  # every user may traverse it, as /tmp: the process level may still drop to a uid of its own
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder
    subprocess.run(["chmod", "-R", "u+rwx", str(folder)], capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)


def ipc_key_range() -> tuple[int, int]:
    low = 0x5EC0000 + os.getpid() % 4096 * 64
    return low, low + 64


# -- item 7: shared memory escapes neither the memory limit nor the learner -------------------------------------
SHM_HOG = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
SEGMENT = {segment_mb} << 20
held_mb, refused = 0, set()
for i in range({segments}):
    shmid = libc.shmget({key} + i, SEGMENT, 0o1600)  # IPC_CREAT | 0600
    if shmid < 0:
        refused.add(os.strerror(ctypes.get_errno()))
        continue
    address = libc.shmat(shmid, None, 0)
    if address in (None, 2 ** 64 - 1):
        refused.add(os.strerror(ctypes.get_errno()))
        continue
    ctypes.memset(address, 1, SEGMENT)  # the pages are really taken
    libc.shmdt(ctypes.c_void_p(address))
    held_mb += {segment_mb}
for i, (name, args) in enumerate((("msgget", ()), ("semget", (1,)))):
    if getattr(libc, name)({key} + 32 + i, *args, 0o1600) < 0:
        refused.add(os.strerror(ctypes.get_errno()))
memfd_mb = 0
try:
    memfd = os.memfd_create("hog")
    os.write(memfd, b"x" * (8 << 20))  # written, never mapped: not in the address space
    memfd_mb = 8
except OSError as err:
    refused.add(err.strerror)
refused = sorted(refused)
"""

LOOK_FOR_IPC = """
found = {{}}
for kind in ("shm", "msg", "sem"):
    with open(f"/proc/sysvipc/{{kind}}") as table:
        rows = [line.split() for line in table.read().splitlines()[1:] if line.strip()]
    found[kind] = [int(row[0]) for row in rows if {low} <= int(row[0]) < {high}]
"""


@pytest.mark.slow  # 1.5-7 s a level: a 1.3 GB hog, then a second learner, per level
def test_shared_memory_cannot_hold_memory_beyond_the_limit_or_outlive_the_learner(
    worker_level: str, shared_tmp: Path
) -> None:
    """20 segments of 64 MB touched one by one under a 1 GB address-space limit (1.25 GB held on the old code,
    and kept after grading): System V IPC and memfd are refused, and no IPC object is left for the grader's
    host or the next learner to find."""
    low, high = ipc_key_range()
    limits = replace(DEFAULT_LIMITS, timeout=60.0, memory_mb=1024)
    hog = write_nb(shared_tmp, f"shm-hog-{worker_level}", [SHM_HOG.format(segment_mb=64, segments=20, key=low)])
    look = write_nb(shared_tmp, f"shm-look-{worker_level}", [LOOK_FOR_IPC.format(low=low, high=high)])
    try:
        first, second = in_turn(worker_level, limits, (hog, ("held_mb", "memfd_mb", "refused")), (look, ("found",)))
        assert (first["held_mb"], first["memfd_mb"]) == (0, 0), first  # nothing outside the address-space limit
        assert first["refused"] == ["Function not implemented"], first
        assert second["found"] == NOTHING  # the next learner finds nothing
        assert sysv_keys(low, high) == NOTHING  # nor does the grader, on its own host
    finally:
        ipcrm_keys(low, high)


def test_a_refused_call_says_why(worker_level: str, shared_tmp: Path) -> None:
    limits = DEFAULT_LIMITS
    path = write_nb(shared_tmp, f"memfd-{worker_level}", ["import os\nos.memfd_create('scratch')", *SQUARES_SOLVED])
    started = zygotes(worker_level, 1, limits)
    try:
        worker, execution = start_worker(read_submission(path), limits, mode_of(worker_level), *started)
        worker.close()
    finally:
        for zygote in started:
            zygote.close()
    assert [e.evalue for e in execution.cell_errors] == [
        "[Errno 38] Function not implemented: shared memory, message queues and keyrings between processes (System V "
        "IPC, memfd, the kernel's keys) are turned off while grading"
    ]


KEYRING = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
numbers = {{"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}}.get(os.uname().machine, (248, 249, 250))
libc.syscall.restype = ctypes.c_long
USER_KEYRING = -4
if {put}:
    made = libc.syscall(numbers[0], b"user", b"left-by-first", b"secret", 6, USER_KEYRING)
else:
    made = libc.syscall(numbers[1], b"user", b"left-by-first", None, USER_KEYRING)
refused = os.strerror(ctypes.get_errno()) if made < 0 else "made"
"""


@pytest.mark.skipif(ipc.FILTER is None, reason="no system-call filter for this machine")
def test_a_learner_cannot_leave_keys_in_the_kernel_for_the_next(worker_level: str, shared_tmp: Path) -> None:
    """A uid's keyring outlives its processes: keys a learner added stayed after grading (4 KB per uid, found in
    /proc/key-users), where the next learner graded as the same uid read them. The key calls are refused."""
    put = write_nb(shared_tmp, f"key-put-{worker_level}", [KEYRING.format(put=True)])
    get = write_nb(shared_tmp, f"key-get-{worker_level}", [KEYRING.format(put=False)])
    first, second = in_turn(worker_level, DEFAULT_LIMITS, (put, ("refused",)), (get, ("refused",)))
    assert first["refused"] == second["refused"] == "Function not implemented"


IPC_LEFT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
made = [libc.shmget({key} + i, 1 << 20, 0o1600) for i in range(3)]
made += [libc.msgget({key} + 32, 0o1600), libc.semget({key} + 33, 1, 0o1600)]
"""


@pytest.mark.slow  # 2-3.5 s a level: two learners in turn from zygotes
def test_ipc_objects_are_removed_with_the_learner_where_they_cannot_be_refused(
    worker_level: str, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the system-call filter cannot be installed (another architecture), what a learner made is
    still removed when it ends: the next learner and the grader's host find none of it (except at the process
    level as the grader's own user, where the learner's objects cannot be told from the user's own)."""
    monkeypatch.setattr("grader.execute.ipc.FILTER", None)
    low, high = ipc_key_range()
    limits = replace(DEFAULT_LIMITS, timeout=60.0)
    maker = write_nb(shared_tmp, f"ipc-maker-{worker_level}", [IPC_LEFT.format(key=low)])
    look = write_nb(shared_tmp, f"ipc-look-{worker_level}", [LOOK_FOR_IPC.format(low=low, high=high)])
    try:
        first, second = in_turn(worker_level, limits, (maker, ("made",)), (look, ("found",)))
        assert min(first["made"]) >= 0, first  # without the filter they were made
        made = {"shm": [low, low + 1, low + 2], "msg": [low + 32], "sem": [low + 33]}
        expected = NOTHING if protected(worker_level) else made
        assert {kind: sorted(keys) for kind, keys in second["found"].items()} == expected  # in /proc's order
        assert sysv_keys(low, high) == expected
    finally:
        ipcrm_keys(low, high)


# -- item 10: squatting later learners' folders changes no later learner's score -------------------------------
SQUAT = """
import os
squatted = 0
above = os.path.dirname(os.getcwd())  # where the grader makes learners' folders
for i in range(300):
    for name in (f"learner-{i}", f"grader-worker-{i}", f"tmp{i}"):
        try:
            os.mkdir(os.path.join(above, name), 0o500)
            squatted += 1
        except OSError:
            pass
try:
    os.chmod(above, 0o500)
except OSError:
    pass
"""


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_a_squatter_changes_no_later_learners_score(worker_level: str, shared_tmp: Path, private_tmp: Path) -> None:
    """A learner pre-creates read-only folders named as later learners' working folders would be (and makes
    the folder above its own read-only where it can); the honest learners graded after it by the same
    zygote keep 5 / 5 (on the old code: 0, "crashed (FileExistsError)")."""
    limits = replace(DEFAULT_LIMITS, timeout=30.0)
    lesson = load_lesson("squares", FIXTURE_LESSONS)
    squatter = read_submission(write_nb(shared_tmp, f"squatter-{worker_level}", [SQUAT, *SQUARES_SOLVED]))
    honest = read_submission(write_nb(shared_tmp, f"honest-{worker_level}", list(SQUARES_SOLVED)))
    started = zygotes(worker_level, 1, limits)
    try:
        with SuiteSession(lesson) as suites:
            reports = []
            for sub in (squatter, honest, honest, squatter, honest):
                with Workers(limits, mode_of(worker_level), started[0] if started else None) as workers:
                    reports.append(grade_submission(sub, lesson, suites, workers, lent_solution(lesson)))
    finally:
        for zygote in started:
            zygote.close()
    assert [(r.status, r.score) for r in reports] == [("graded", 5.0)] * 5, [r.errors for r in reports]


@pytest.mark.slow
def test_a_squatter_changes_no_later_score_in_a_batch(level: str, shared_tmp: Path) -> None:
    """The same through ``grade batch --jobs 1``: one grading process grades the squatter first, then the others."""
    folder = shared_tmp / f"squat-batch-{level}"
    folder.mkdir()
    write_nb(folder, "a-squatter", [SQUAT, *SQUARES_SOLVED])
    for name in ("b-honest", "c-honest", "d-honest"):
        write_nb(folder, name, list(SQUARES_SOLVED))
    out = folder / "out"
    temp = folder / "temp"
    temp.mkdir()
    temp.chmod(0o711)
    done = subprocess.run(
        ["grade", "batch", str(folder), "--out", str(out), "--jobs", "1", *LESSONS],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    assert done.returncode == 0, done.stderr
    with open(out / "grades.csv", newline="") as grades:
        rows = {row["learner"]: row for row in csv.DictReader(grades)}
    assert {name: float(row["score"]) for name, row in rows.items()} == dict.fromkeys(
        ("a-squatter", "b-honest", "c-honest", "d-honest"), 5.0
    )


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
@pytest.mark.parametrize("zygote_level", ZYGOTE_LEVELS)
def test_a_squatter_changes_no_later_score_in_the_daemon(
    daemons: Daemons,  # noqa: F811
    tmp_path: Path,
    zygote_level: str,
) -> None:
    squatter = write_nb(tmp_path, "squatter", [SQUAT, *SQUARES_SOLVED])
    honest = write_nb(tmp_path, "honest", list(SQUARES_SOLVED))
    daemons.grade(str(squatter), *LESSONS, GRADER_ISOLATION=isolation_of(zygote_level))  # cold; starts the daemon
    daemons.wait_until_ready()
    for path in (squatter, honest, honest):
        result = daemons.grade(str(path), *LESSONS, "--json", GRADER_ISOLATION=isolation_of(zygote_level))
        assert result.returncode == 0 and json.loads(result.stdout)["score"] == 5.0, result.stdout
    assert daemons.log().count(": answered in ") == 3


# -- stop 48's hostile round: what a forked learner writes is bounded, and never on the grader's disk ---------------
FILL = """
import errno, os
written, error, home = 0, "", os.getcwd()
try:
    for i in range(8):  # 96 MB in files of 12 MB: each within max_file_mb, all together beyond tmpfs_mb
        with open(f"fill-{i}", "wb") as f:
            f.write(b"x" * (12 * 1024 * 1024))
        written += 1
except OSError as err:
    error = errno.errorcode.get(err.errno, str(err.errno))
"""
LOOK = """
import os
home, mine = os.getcwd(), sorted(os.listdir(os.getcwd()))
with open("notes.txt", "w") as f:  # an honest learner's own file, where it works
    f.write("kept while it runs")
"""


@pytest.mark.parametrize("sandbox_level", SANDBOX_LEVELS)
def test_what_a_learner_writes_is_bounded_and_not_on_the_graders_disk(sandbox_level: str) -> None:
    """A learner's working folder is in its sandbox's own tmpfs (``Limits.tmpfs_mb``), spawned or forked from a
    zygote: writing 96 MB there stops at "no space" (on the old code it went on, to the grader's disk, at 7.8 GB in
    20 s); the grader's folder for it holds nothing; the next learner (of the same zygote) starts in an empty folder
    of its own and writes there."""
    limits = replace(DEFAULT_LIMITS, timeout=30.0)
    with tempfile.TemporaryDirectory(prefix="grader-hostile-") as folder:
        filler = write_nb(Path(folder), "filler", [FILL, *SQUARES_SOLVED])
        honest = write_nb(Path(folder), "honest", [LOOK, *SQUARES_SOLVED])
        started = zygotes(sandbox_level, 1, limits)
        try:
            seen = []
            for path, names in ((filler, ("written", "error", "home")), (honest, ("home", "mine"))):
                worker, execution = start_worker(read_submission(path), limits, mode_of(sandbox_level), *started)
                with worker:
                    assert not execution.cell_errors, execution.cell_errors
                    seen.append({name: worker.value(name) for name in names})
                    on_the_graders_disk = sum(f.stat().st_size for f in worker.workdir.rglob("*") if f.is_file())
                    assert on_the_graders_disk == 0
        finally:
            for zygote in started:
                zygote.close()
    assert seen[0]["error"] == "ENOSPC" and seen[0]["written"] * 12 < limits.tmpfs_mb, seen[0]
    assert seen[0]["home"].startswith("/tmp/learner-") and seen[1]["home"].startswith("/tmp/learner-")
    assert seen[1]["home"] != seen[0]["home"] and not [name for name in seen[1]["mine"] if name.startswith("fill-")]


# -- item 11: what a learner leaves is gone before the next learner starts ---------------------------------------
LEAVE = """
import os
left, home = [], os.getcwd()
for top in ("/tmp", "/dev/shm", home):
    os.chdir(top)
    os.mkdir("deep-{mark}")
    os.chdir("deep-{mark}")
    for _ in range(1500):  # deeper than Python's recursion limit, and longer than PATH_MAX
        os.mkdir("folder")
        os.chdir("folder")
    os.chmod(".", 0o500)
    os.chdir(home)
    left.append(os.path.join(top, "deep-{mark}"))
    base = os.path.join(top, "left-{mark}")
    deeper = os.path.join(base, "deep", "deeper")
    os.makedirs(deeper)
    for folder in (deeper, os.path.dirname(deeper), base):
        with open(os.path.join(folder, "secret.txt"), "w") as f:
            f.write("from the first learner")
    os.chmod(deeper, 0o000)
    os.chmod(os.path.dirname(deeper), 0o500)
    os.chmod(base, 0o555)
    loose = os.path.join(top, "loose-{mark}.txt")
    with open(loose, "w") as f:
        f.write("from the first learner")
    os.chmod(loose, 0o444)
    left += [base, loose]
"""

LOOK_FOR_LEFTOVERS = """
import os
listed = sorted(os.path.join(top, name) for top in ("/tmp", "/dev/shm") for name in os.listdir(top) if "{mark}" in name)
still_there = [path for path in {left!r} if os.path.lexists(path)]
"""


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_leftovers_read_only_ones_too_are_invisible_to_the_next_learner(worker_level: str, shared_tmp: Path) -> None:
    """A learner leaves read-only folders (one of them unreadable, one 1,500 deep) and read-only files in /tmp,
    /dev/shm and its own folder; the next learner of the same zygote finds none of them, and neither does the host
    (at the process level as the grader's own user, what it left in the host's /tmp and /dev/shm stays:
    SECURITY.md)."""
    mark = marker().replace(".", "")
    limits = replace(DEFAULT_LIMITS, timeout=30.0)
    first_path = write_nb(shared_tmp, f"leave-{worker_level}", [LEAVE.format(mark=mark)])
    on_host: list[str] = []
    started = zygotes(worker_level, 1, limits)
    try:
        worker, execution = start_worker(read_submission(first_path), limits, mode_of(worker_level), *started)
        with worker:
            assert not execution.cell_errors, execution.cell_errors
            left = worker.value("left")
        on_host = [] if protected(worker_level) else [p for p in left if os.path.dirname(p) in ("/tmp", "/dev/shm")]
        look = write_nb(shared_tmp, f"look-{worker_level}", [LOOK_FOR_LEFTOVERS.format(mark=mark, left=left)])
        worker, execution = start_worker(read_submission(look), limits, mode_of(worker_level), *started)
        with worker:
            assert not execution.cell_errors, execution.cell_errors
            assert (worker.value("listed"), worker.value("still_there")) == (sorted(on_host), on_host)
        assert sorted(
            os.path.join(top, name) for top in ("/tmp", "/dev/shm") for name in os.listdir(top) if mark in name
        ) == sorted(on_host)
    finally:
        for zygote in started:
            zygote.close()
        for path in (
            os.path.join(top, name) for top in ("/tmp", "/dev/shm") for name in os.listdir(top) if mark in name
        ):
            subprocess.run(["chmod", "-R", "u+rwx", path], capture_output=True)
            subprocess.run(["rm", "-rf", path], capture_output=True)


# -- item 14: an interrupted `grade` leaves nothing behind -----------------------------------------------------------
STALL = """
import subprocess
child = subprocess.Popen(["sleep", "{mark}"])  # the test sees it start (a forked worker's folder is the sandbox's)
while True:
    pass
"""
OURS = ("grader-worker-", "grade-inflight-", "grader-zygote-")


@pytest.fixture
def interrupted(level: str, shared_tmp: Path) -> Iterator[tuple[Path, str]]:
    """A private temp folder for the `grade` started by the test, and the marker of the learner's sleeper."""
    temp = shared_tmp / f"interrupted-{level}-{time.monotonic_ns()}"
    temp.mkdir()
    temp.chmod(0o711)  # every user may traverse it, as /tmp: the process level still drops to a uid of its own
    mark = marker()
    yield temp, mark
    kill_marked(mark)


def working_in(folder: Path) -> list[int]:
    """Processes whose working directory is in ``folder`` (a learner's worker, and what it started, work in theirs)."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            if entry.name.isdigit() and os.readlink(f"/proc/{entry.name}/cwd").startswith(f"{folder}/"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def sigterm_mid_notebook(args: list[str], temp: Path, mark: str) -> subprocess.CompletedProcess[str]:
    grade = subprocess.Popen(
        ["grade", *args],
        env={**os.environ, "TMPDIR": str(temp)},
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not processes_with(mark) and grade.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert grade.poll() is None and processes_with(mark), "the notebook never started"
        grade.send_signal(signal.SIGTERM)  # as `kill PID` or `timeout` would: the grade process only
        stdout, stderr = grade.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while group_alive(grade.pid) and time.monotonic() < deadline:  # a batch's grading processes, if any
            time.sleep(0.1)
        assert not group_alive(grade.pid), "grading processes were left running"
    finally:
        if grade.poll() is None:
            os.killpg(grade.pid, signal.SIGKILL)
            grade.wait()
    return subprocess.CompletedProcess(grade.args, grade.returncode, stdout, stderr)


@pytest.mark.slow  # about 2 s a level: a real grade, stopped mid-notebook
def test_sigterm_mid_notebook_leaves_no_folder_or_process(level: str, interrupted: tuple[Path, str]) -> None:
    temp, mark = interrupted
    path = write_nb(temp, "stall", [STALL.format(mark=mark), *SQUARES_SOLVED])
    done = sigterm_mid_notebook([str(path), *LESSONS, "--json", "--timeout", "120"], temp, mark)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert [name for name in os.listdir(temp) if name.startswith(OURS)] == []
    assert processes_with(mark) == [] and working_in(temp) == []


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_sigterm_mid_batch_leaves_no_folder_or_process(level: str, interrupted: tuple[Path, str]) -> None:
    temp, mark = interrupted
    folder = temp / "submissions"
    folder.mkdir()
    write_nb(folder, "stall", [STALL.format(mark=mark), *SQUARES_SOLVED])
    write_nb(folder, "waiting", list(SQUARES_SOLVED))
    done = sigterm_mid_notebook(
        ["batch", str(folder), "--out", str(temp / "out"), "--jobs", "1", "--timeout", "120", *LESSONS], temp, mark
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert [name for name in os.listdir(temp) if name.startswith(OURS)] == []
    assert processes_with(mark) == [] and working_in(temp) == []
