"""Workers forked from a warm zygote: learners who follow each other in one zygote cannot reach each other.

One zygote grades learners one after another inside one bubblewrap sandbox (see SECURITY.md), so these
tests grade a "first" learner who tries to leave something behind for the next one (a file, a running
process, a patched module, its random numbers, the zygote itself) and then a "second" learner who looks
for it, in the same zygote. The hostile suite (tests/test_hostile.py) runs every other attack at the
"zygote" level too.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from grader.config import DEFAULT_LIMITS, WorkerMode
from grader.environment import WORKERS_ENV
from grader.errors import ExecutionTimeout, UsageError, WorkerCrashed
from grader.execute import sandbox
from grader.execute.process import Spawned
from grader.execute.worker import LearnerProcess, start_worker
from grader.execute.zygote import Zygote, ZygoteUnavailable
from grader.read import read_submission

BWRAP_PROBLEM = sandbox.bwrap_problem()
pytestmark = pytest.mark.skipif(BWRAP_PROBLEM is not None, reason=f"no bubblewrap: {BWRAP_PROBLEM}")
LIMITS = replace(DEFAULT_LIMITS, timeout=10.0, call_timeout=2.0)
BWRAP = WorkerMode(isolation="bubblewrap")


@pytest.fixture
def zygote() -> Iterator[Zygote]:
    started = Zygote.start(LIMITS, BWRAP)
    assert started is not None
    try:
        yield started
    finally:
        started.close()
    assert not started.root.exists()


def run(zygote: Zygote, path: Path, *names: str) -> dict[str, object]:
    worker, execution = start_worker(read_submission(path), LIMITS, BWRAP, zygote)
    with worker:
        assert isinstance(worker._os, Spawned) is False, "the worker was forked, not spawned"
        assert not execution.cell_errors, execution.cell_errors
        return {name: worker.value(name) for name in names}


FIRST = """
import os, random, statistics, subprocess, time
before = sorted(name for name in os.listdir("/tmp") if os.path.join("/tmp", name) != os.getcwd())  # but its own
open("/tmp/left-by-first", "w").write("secret")
open("/dev/shm/left-by-first", "w").write("secret")
daemon = os.fork()
if daemon == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "59.424242"])
    os._exit(0)
os.waitpid(daemon, 0)
statistics.mean = lambda *a, **k: "patched"
draw = random.random()
home = os.environ["HOME"]
"""

SECOND = """
import os, random, statistics
now = sorted(name for name in os.listdir("/tmp") if os.path.join("/tmp", name) != os.getcwd())
shm = os.listdir("/dev/shm")
import tempfile
temp = tempfile.gettempdir()
sleepers = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if b"59.424242" in open(f"/proc/{pid}/cmdline", "rb").read():
            sleepers.append(pid)
    except OSError:
        pass
patched = statistics.mean([1]) == "patched"
draw = random.random()
home = os.environ["HOME"]
"""


def test_the_next_learner_finds_nothing_the_last_one_left(zygote: Zygote, write_notebook: Callable[..., Path]) -> None:
    first = run(zygote, write_notebook([FIRST], name="first.ipynb"), "draw", "home", "before")
    second = run(
        zygote,
        write_notebook([SECOND], name="second.ipynb"),
        "now",
        "shm",
        "temp",
        "sleepers",
        "patched",
        "draw",
        "home",
    )
    assert zygote.sweeps == 1  # the first learner left a process and files: the zygote swept after it
    # /tmp (but for each learner's own folder there) and /dev/shm as the zygote left them: the first's folder is gone
    assert second["now"] == first["before"] and second["shm"] == []
    assert second["temp"] == second["home"]  # tempfile writes in the learner's own folder, as in a spawned worker
    assert second["sleepers"] == []  # the daemon that left the session was killed
    assert second["patched"] is False  # each child starts from the zygote's untouched modules
    assert second["draw"] != first["draw"]  # reseeded after fork: learners do not share random numbers
    assert second["home"] != first["home"] and str(second["home"]).startswith("/tmp/learner-")


def test_the_zygote_cannot_be_read_and_a_killed_zygote_is_replaced(
    zygote: Zygote, write_notebook: Callable[..., Path]
) -> None:
    spy = write_notebook(
        [
            "import os\nparent = os.getppid()\nreads = {}\n"
            "for name in ('environ', 'mem', 'maps'):\n"
            "    try:\n        open(f'/proc/{parent}/{name}', 'rb').read(1)\n        reads[name] = 'read'\n"
            "    except OSError as err:\n        reads[name] = type(err).__name__"
        ],
        name="spy.ipynb",
    )
    reads = run(zygote, spy, "reads")["reads"]
    assert isinstance(reads, dict) and "read" not in reads.values(), reads
    killer = read_submission(
        write_notebook(
            ["import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\nexcept OSError:\n    pass"],
            name="killer.ipynb",
        )
    )
    worker = LearnerProcess(killer, LIMITS, BWRAP, zygote)
    with worker:
        try:
            worker.run_notebook()  # as root the kill is refused; otherwise this learner's own grading ends
        except Exception:
            pass
    assert run(zygote, write_notebook(["x = 41 + 1"], name="after.ipynb"), "x") == {"x": 42}


def test_workers_are_spawned_when_asked_or_when_there_is_no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(WORKERS_ENV, "spawn")
    assert Zygote.start(LIMITS, BWRAP) is None
    monkeypatch.setenv(WORKERS_ENV, "fork")
    assert Zygote.start(LIMITS, WorkerMode(isolation="process")) is None
    monkeypatch.setenv(WORKERS_ENV, "clone")
    with pytest.raises(
        UsageError, match="GRADER_WORKERS='clone' is not a way to start workers; use one of fork, spawn"
    ):
        Zygote.start(LIMITS, BWRAP)


def test_a_dead_zygote_falls_back_to_spawning(
    zygote: Zygote, write_notebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def cannot_boot() -> None:
        raise ZygoteUnavailable("bwrap failed")

    monkeypatch.setattr(zygote, "_boot", cannot_boot)
    zygote._kill()  # as if it died; it cannot boot again here
    worker, _ = start_worker(read_submission(write_notebook(["y = 2"])), LIMITS, BWRAP, zygote)
    with worker:
        assert isinstance(worker._os, Spawned)
        assert worker.value("y") == 2


def test_timeouts_and_crashes_read_the_same_as_spawned(zygote: Zygote, write_notebook: Callable[..., Path]) -> None:
    loop = LearnerProcess(
        read_submission(write_notebook(["x = 1", "while True:\n    pass"], name="loop.ipynb")),
        replace(LIMITS, timeout=1.0),
        BWRAP,
        zygote,
    )
    with pytest.raises(ExecutionTimeout, match="in cell 2: `while True:`"):
        loop.run_notebook()
    crash = LearnerProcess(
        read_submission(write_notebook(["import ctypes\nctypes.string_at(0)"], name="crash.ipynb")),
        LIMITS,
        BWRAP,
        zygote,
    )
    with pytest.raises(WorkerCrashed, match=r"segmentation fault \(SIGSEGV\)\) in cell 1"):
        crash.run_notebook()
    assert run(zygote, write_notebook(["z = 3"], name="fine.ipynb"), "z") == {"z": 3}  # the zygote lives on


def test_a_learner_who_needed_ipython_changes_nothing_for_the_next_ones(
    zygote: Zygote, write_notebook: Callable[..., Path]
) -> None:
    """A notebook of plain Python never imports IPython; one with a magic builds IPython's shell in its own worker
    only, so the learners after it run exactly as the ones before it (the hostile round: once the zygote built it
    for them, the recursion limit and IPython's names changed under a plain learner, and a 1,200-term sum that
    crashed one learner's worker passed after another learner's magic)."""
    plain = write_notebook(
        [
            "import builtins, sys\nipython = 'IPython' in sys.modules\nlimit = sys.getrecursionlimit()\n"
            "shown = hasattr(builtins, '__IPYTHON__')\ntotal = " + " + ".join(["1"] * 1200)
        ]
    )
    magic = write_notebook(["%time x = 1\nimport sys\nipython = 'IPython' in sys.modules"], name="magic.ipynb")
    names = ("ipython", "limit", "shown", "total")
    before = run(zygote, plain, *names)
    assert before == {"ipython": False, "limit": 3000, "shown": False, "total": 1200}  # a kernel's limit, no IPython
    assert run(zygote, magic, "x", "ipython") == {"x": 1, "ipython": True}
    assert run(zygote, plain, *names) == before


def test_a_zygote_is_replaced_after_its_quota_of_learners(
    zygote: Zygote, write_notebook: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("grader.execute.zygote.ZYGOTE_FORKS", 2)
    path = write_notebook(["x = 1"])

    def sandbox_pid() -> int:
        assert run(zygote, path, "x") == {"x": 1}
        assert zygote._proc is not None
        return zygote._proc.pid

    first, second, third = sandbox_pid(), sandbox_pid(), sandbox_pid()
    assert first == second != third  # two learners per zygote here, then a fresh sandbox


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_a_killed_graders_zygote_folder_is_removed_by_the_next_zygote() -> None:
    code = (
        "from grader.execute.zygote import Zygote; from grader.config import DEFAULT_LIMITS, DEFAULT_MODE; "
        "z = Zygote.start(DEFAULT_LIMITS, DEFAULT_MODE); print(z.root, flush=True); import time; time.sleep(60)"
    )
    grader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        root = Path(grader.stdout.readline().strip())  # type: ignore[union-attr]
        assert root.is_dir() and root.parent == Path(tempfile.gettempdir())
    finally:
        grader.kill()  # SIGKILL: nothing of it can clean up
        grader.wait()
    assert root.is_dir()
    Zygote.start(LIMITS, BWRAP).close()  # type: ignore[union-attr]
    assert not root.exists()


@pytest.mark.slow  # more than 2 s (issue 21: the quick loop leaves out what takes longer)
def test_a_grading_process_grades_with_the_zygote_it_warmed_in_the_background() -> None:
    from grader.batch.work import GradingContext, Settings, Task
    from grader.pipeline import GradeOptions
    from tests.conftest import REPO

    context = GradingContext(Settings(GradeOptions(limits=LIMITS, mode=BWRAP)))
    try:
        context.grader.warm_soon()  # as a pool's grading process does when it starts
        assert context.grader.runner._warming is not None
        context.grader.runner._warming.join()
        assert len(context.grader.runner._idle) == 1  # booted in the background, waiting for the first task
        submission = read_submission(REPO / "solutions" / "decode.ipynb")
        report = context.grade(Task("ada", submission, "decode", context.settings))
        assert report.status == "graded" and report.score == report.max_score
        frozen = gc.get_freeze_count()
        assert frozen > 0  # what it keeps for the next notebooks is set aside from the collector after the first
        context.grade(Task("bea", submission, "decode", context.settings))
        assert gc.get_freeze_count() <= frozen  # once per lesson, not per notebook (some frozen ones are freed)
        assert len(context.grader.runner._zygotes) == 1  # the warmed one, not a second one booted for the first task
    finally:
        context.close()
    assert gc.get_freeze_count() == 0  # and given back to it when the grader closes


def test_a_zygote_ended_from_two_threads_at_once_ends_cleanly(zygote: Zygote, monkeypatch: pytest.MonkeyPatch) -> None:
    # A dying grading process ends its zygotes from its parent-watch thread while the grading thread, finding
    # the zygote dead, ends it too. Here the second end happens in the middle of the first.
    from grader.execute import zygote as zygote_module

    real_end = zygote_module.end_worker
    calls: list[int] = []

    def end_and_race(pid: int, uid: int | None) -> None:
        calls.append(pid)
        real_end(pid, uid)
        if len(calls) == 1:
            zygote._kill()  # the other thread's end, before the first one has finished

    monkeypatch.setattr(zygote_module, "end_worker", end_and_race)
    zygote.close()
    assert calls and zygote._proc is None and zygote._control is None


GHOST = """
import ctypes, os, threading, time
ghost = os.fork()
if ghost == 0:
    os.setsid()
    def haunt():
        while True:
            try:
                open("/tmp/ghost-by-first", "w").write("boo")
            except OSError:
                pass
            time.sleep(0.002)
    threading.Thread(target=haunt).start()
    ctypes.CDLL(None).pthread_exit(None)  # the process's first thread ends; the one haunting lives on
time.sleep(0.05)
"""

LOOK = """
import os, time
time.sleep(0.1)
haunted = os.path.exists("/tmp/ghost-by-first")
others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid(), os.getppid()))
"""


def test_a_process_whose_first_thread_ended_is_swept_too(zygote: Zygote, write_notebook: Callable[..., Path]) -> None:
    run(zygote, write_notebook([GHOST], name="ghost.ipynb"))
    second = run(zygote, write_notebook([LOOK], name="look.ipynb"), "haunted", "others")
    assert second == {"haunted": False, "others": []}


HONEST = """
import os, subprocess, tempfile
open(os.path.join(os.environ["HOME"], "notes.txt"), "w").write("mine")
with tempfile.NamedTemporaryFile(delete=False) as kept:
    kept.write(b"in my own folder")
done = subprocess.run(["true"]).returncode
home = os.environ["HOME"]
"""


def test_learners_who_leave_nothing_are_ended_without_a_sweep(
    zygote: Zygote, write_notebook: Callable[..., Path]
) -> None:
    """An honest worker exits once the grader hangs up, and the zygote finds nothing of it left: no sweeper is
    forked. What it wrote in its own folder goes with the folder (the grader empties its root after each learner)."""
    path = write_notebook([HONEST], name="honest.ipynb")
    homes = [run(zygote, path, "done", "home") for _ in range(3)]
    assert zygote.sweeps == 0
    assert all(h["done"] == 0 and not Path(str(h["home"])).exists() for h in homes)
    assert list(zygote.root.iterdir()) == []


LEFTOVERS = {
    "a file in /tmp": "open('/tmp/left', 'w').write('x')",
    "a file in /dev/shm": "open('/dev/shm/left', 'w').write('x')",
    "a folder in /tmp": "import os\nos.makedirs('/tmp/a/b')",
    "a process": "import subprocess\nsubprocess.Popen(['sleep', '59.515151'], start_new_session=True)",
    "a worker that will not exit": "import os, time\nos._exit = lambda code: time.sleep(30)",
}

SEARCH = """
import os
tmp = [name for name in os.listdir("/tmp") if os.path.join("/tmp", name) != os.getcwd()]  # but its own folder
shm = os.listdir("/dev/shm")
others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid(), os.getppid()))
"""


@pytest.mark.parametrize("leftover", list(LEFTOVERS))
def test_whatever_a_learner_leaves_is_swept(zygote: Zygote, write_notebook: Callable[..., Path], leftover: str) -> None:
    before = run(zygote, write_notebook([SEARCH], name="before.ipynb"), "tmp", "shm", "others")
    assert zygote.sweeps == 0
    started = time.monotonic()
    run(zygote, write_notebook([LEFTOVERS[leftover]], name="leaves.ipynb"))
    assert time.monotonic() - started < 5  # a worker that will not exit is killed, not waited for
    assert zygote.sweeps == 1
    assert run(zygote, write_notebook([SEARCH], name="after.ipynb"), "tmp", "shm", "others") == before
    assert zygote.sweeps == 1  # and the learner after it left nothing again


def test_the_zygote_sweeps_when_it_cannot_tell_that_nothing_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the zygote looks at before it decides no sweep is needed, checked outside a sandbox: a folder's mode,
    a stray entry, a link where one of the sandbox's own folders was, and a process made while ``/proc`` was read
    (the namespace's last pid moved)."""
    from grader.execute import zygote_main

    mount, way = tmp_path / "way" / "mount", tmp_path / "way"
    mount.mkdir(parents=True)
    way.chmod(0o755)
    tmp_path.chmod(0o1777)
    server = object.__new__(zygote_main.ZygoteServer)
    server.mounts, server.ways = frozenset({str(mount)}), frozenset({str(way)})
    server.baseline = (0,)
    (mount / "the mount's own files").write_text("kept")
    assert server._untouched(str(tmp_path), 0o1777)
    tmp_path.chmod(0o777)
    assert not server._untouched(str(tmp_path), 0o1777)
    tmp_path.chmod(0o1777)
    (way / "stray").write_text("x")
    assert not server._untouched(str(tmp_path), 0o1777)
    (way / "stray").unlink()
    way.chmod(0o777)
    assert not server._untouched(str(tmp_path), 0o1777)
    way.chmod(0o755)
    way.rename(tmp_path / "moved")
    way.symlink_to(tmp_path / "moved")
    assert not server._untouched(str(tmp_path), 0o1777)

    monkeypatch.setattr(zygote_main, "_WIPED", {str(tmp_path / "moved"): 0o755})
    monkeypatch.setattr(zygote_main, "process_ids", lambda: [1, os.getpid()])
    monkeypatch.setattr(zygote_main, "ipc_objects_left", lambda: False)
    monkeypatch.setattr(zygote_main, "_kernel_state", lambda: (0,))
    server.mounts, server.ways = frozenset({str(tmp_path / "moved" / "mount")}), frozenset()
    pids = iter([41, 41])
    monkeypatch.setattr(zygote_main, "_last_pid", lambda: next(pids))
    assert server._nothing_left()
    pids = iter([41, 42])
    assert not server._nothing_left()  # a process or thread was made while /proc was read
    monkeypatch.setattr(zygote_main, "_last_pid", lambda: 41)
    monkeypatch.setattr(zygote_main, "process_ids", lambda: [1, os.getpid(), 7])
    assert not server._nothing_left()  # another process, a zombie as much as a live one
    monkeypatch.setattr(zygote_main, "process_ids", lambda: [1, os.getpid()])
    monkeypatch.setattr(zygote_main, "ipc_objects_left", lambda: True)
    assert not server._nothing_left()
    monkeypatch.setattr(zygote_main, "ipc_objects_left", lambda: False)
    monkeypatch.setattr(zygote_main, "_kernel_state", lambda: (1,))
    assert not server._nothing_left()  # a socket, or a file's space held, beyond what the sandbox started with


ZOMBIES = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
made = 0
for _ in range(80):
    pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD): a child of the zygote
    if pid == 0:
        libc.syscall(60, 0)  # exit at once: a zombie, the zygote's to reap
    if pid < 0:
        break
    made += 1
pid = libc.syscall(56, 0x8000 | 17, 0, 0, 0, 0)
if pid == 0:
    time.sleep(30)  # and one that lives on
    libc.syscall(60, 0)
"""

CROWDED = """
import os, subprocess, threading
threading.Thread(target=lambda: None).start()
started = subprocess.run(["true"]).returncode
others = sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, os.getpid(), os.getppid()))
"""


def test_processes_a_learner_makes_the_zygotes_children_are_reaped(
    zygote: Zygote, write_notebook: Callable[..., Path]
) -> None:
    """``clone(CLONE_PARENT)`` makes a process the zygote's child: killed, it stayed a zombie nobody reaped, counted
    against the uid the learners share, and 63 of them left the next learner unable to start a thread (an honest
    learner scored 3 of 5; the hostile review)."""
    assert run(zygote, write_notebook([ZOMBIES], name="zombies.ipynb"), "made")["made"] > 60
    assert run(zygote, write_notebook([CROWDED], name="next.ipynb"), "started", "others") == {
        "started": 0,
        "others": [],
    }


TIME_WAIT = """
import socket
server = socket.socket()
server.bind(("127.0.0.1", 4242))
server.listen()
client = socket.create_connection(("127.0.0.1", 4242))
accepted, _ = server.accept()
accepted.close(); client.close(); server.close()  # the side that closes first keeps TIME_WAIT for a minute
"""

IN_FLIGHT = """
import array, os, socket
held = []
for folder in ("/tmp", "/dev/shm"):
    fd = os.open(f"{folder}/held", os.O_CREAT | os.O_RDWR)
    os.posix_fallocate(fd, 0, 8 << 20)
    os.unlink(f"{folder}/held")
    held.append(fd)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno(), b.fileno(), *held]))])
b.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [a.fileno(), b.fileno()]))])
for fd in [a.detach(), b.detach(), *held]:
    os.close(fd)  # nothing holds them now but each other, in flight
"""

KERNEL = """
import os, socket
tables = {t: open(f"/proc/net/{t}").read().count("\\\\n") for t in ("tcp", "tcp6", "unix", "udp")}
used = [os.statvfs(f).f_blocks - os.statvfs(f).f_bfree for f in ("/tmp", "/dev/shm")]
port = socket.socket()
port.bind(("127.0.0.1", 4242))
port.close()
"""


@pytest.mark.parametrize(
    ("leftover", "replaced"),
    [(TIME_WAIT, True), (IN_FLIGHT, False)],
    ids=["a connection in TIME_WAIT: a new sandbox", "sockets in flight: collected"],
)
def test_what_the_kernel_holds_for_a_learner_is_gone_before_the_next(
    zygote: Zygote, write_notebook: Callable[..., Path], leftover: str, replaced: bool
) -> None:
    """Sockets outlive the processes that made them: a closed TCP connection stays in TIME_WAIT for a minute (the
    next learner could not bind its port, and read the ports as a message), and sockets passed inside each other
    hold what was sent (a deleted file's space in ``/tmp``) until the kernel collects them. The zygote sweeps,
    waits for the kernel to let go, and if it does not, gives the next learner a new sandbox."""
    look = write_notebook([KERNEL], name="look.ipynb")
    before = run(zygote, look, "tables", "used")
    sandbox = zygote._proc.pid if zygote._proc else None
    run(zygote, write_notebook([leftover], name="leaves.ipynb"))
    assert run(zygote, look, "tables", "used") == before
    assert (zygote._proc.pid if zygote._proc else None) != sandbox if replaced else zygote.sweeps == 1
