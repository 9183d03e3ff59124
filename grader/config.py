"""Every default the grader uses, defined once. The CLI's option defaults are read from here.

The names of the environment variables the grader reads, which override some of these, are in
:mod:`grader.environment`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, TypeVar

from grader.environment import CACHE_DIR_ENV, LESSONS_ENV
from grader.errors import UsageError

_T = TypeVar("_T")

#: Cells carrying this tag are for the learner's benefit (self-check calls, plots) and are not run when grading.
SKIP_TAG = "self-check"

#: Relative tolerance for comparing numbers in hidden tests (documented in the README).
REL_TOL = 1e-6


#: Workers a zygote forks before it is replaced by a fresh one (it inherits the workers' CPU-time limit).
ZYGOTE_FORKS = 500

#: Seconds a stopping grading process gives its cleanup (its workers' folders) once it has killed them, before it
#: exits anyway; a batch stopped by a signal waits for its grading processes one second more, then kills them.
STOP_SECONDS = 3.0
#: Seconds between a batch's looks at whether a signal asked it to stop (its handler only notes the signal).
STOP_POLL_SECONDS = 0.2

#: The waits of ``grader/execute`` that are not grading deadlines (every deadline of a learner's code is the
#: :class:`TimeBudget`'s): each bounds the grading machine's own upkeep of its processes, so that one stuck in
#: the kernel costs seconds, never a hang (tests/test_deadlines.py finds no other number there).
#: Seconds for a killed worker's (or zygote's) processes to exit and be reaped: SIGKILL cannot be ignored.
END_WAIT_SECONDS = 5.0
#: Seconds a zygote may take to answer a request (the sweep after a learner included) before it is declared dead.
ZYGOTE_ANSWER_SECONDS = 10.0
#: Seconds the bubblewrap level's probe (``python -c pass`` in a sandbox) may take before the level is unusable here.
SANDBOX_PROBE_SECONDS = 30.0
#: Seconds for a worker's exit status to arrive once its channel closed (to say why it stopped), and for the
#: thread reading its output to take the last of it.
EXIT_STATUS_SECONDS = 1.0
OUTPUT_DRAIN_SECONDS = 0.5
#: Seconds a zygote's sweep waits for the processes it killed before it scans ``/proc`` again.
SWEEP_SCAN_SECONDS = 0.05
#: Seconds a zygote waits for a learner's worker to exit by itself once the grader has hung up, before it sweeps
#: (an honest worker takes ~2 ms; one that is busy or will not exit is swept, a notebook later than this).
HANG_UP_EXIT_SECONDS = 0.05
#: Seconds a zygote waits, after a sweep, for the kernel to free what the learner's processes held (sockets sent
#: inside sockets), before it ends itself so that the next learner gets a new sandbox.
SETTLE_SECONDS = 0.2
#: Seconds a batch waits for its gradebook's disk to have room again before it stops: a learner's notebook can fill
#: the disk its working folder is on until its time runs out (its folder is then deleted), and the batch rides that
#: out instead of stopping; longer than a notebook may run with the default limits (30 s of cells, 60 s of calls).
DISK_FULL_WAIT_SECONDS = 120.0

#: Exit status of ``grade`` when a notebook could not be graded (unreadable, broken lesson); 0 when it was,
#: whatever its score; 2 for bad usage (click's).
EXIT_UNGRADED = 1

#: Seconds a daemon waits for its next request before it exits (``$GRADER_DAEMON_IDLE`` overrides).
DAEMON_IDLE_SECONDS = 600.0
#: How long ``grade`` waits for the daemon's answer before grading cold instead: this many learner calls at their
#: time limit beyond the worker's boot and the notebook's run (a notebook whose every hidden test hangs takes
#: minutes; a daemon slower than that is presumed stuck): :attr:`TimeBudget.daemon_reply`, 600 s by default.
DAEMON_REPLY_CALLS = 100
#: Seconds ``grade daemon`` waits for a daemon's status (it answers only once warm).
DAEMON_STATUS_SECONDS = 2.0

#: What per-learner feedback files show (``grade batch --feedback``): ``learner`` (the default, safe to send)
#: what ``grade`` shows the learner, the lesson's reveal policy applied; ``full`` the teaching assistant's copy,
#: expected values and right answers included (asked for explicitly, and marked so at its top); ``summary``
#: hides what the hidden tests called.
FeedbackMode = Literal["full", "learner", "summary"]
FEEDBACK_MODES: tuple[FeedbackMode, ...] = ("full", "learner", "summary")
DEFAULT_FEEDBACK: FeedbackMode = "learner"

#: What an LMS import file holds for a learner whose notebook could not be graded (unreadable, another
#: lesson's, refused): ``blank`` (no grade: the LMS keeps "please resubmit" apart from a real 0) or ``zero``.
Ungradable = Literal["blank", "zero"]
UNGRADABLE_CHOICES: tuple[Ungradable, ...] = ("blank", "zero")
DEFAULT_UNGRADABLE: Ungradable = "blank"

#: Similar submissions (grader/batch/similar.py): winnowing over the AST normal form's tokens with k-grams of
#: WINNOW_K tokens in windows of WINNOW_W (any shared run of WINNOW_K + WINNOW_W - 1 = 8 tokens is found); each
#: fingerprint weighs by its rarity in the class, and a pair is listed at a weighted Jaccard index of
#: SIMILARITY_THRESHOLD or more when what they share weighs at least SIMILARITY_MIN_FINGERPRINTS fingerprints
#: only the two of them have; a fingerprint more than SIMILARITY_COMMON_SHARE of the class has (and more than
#: two learners), or the lesson's skeleton has, is the obvious way to write it, not evidence.
WINNOW_K = 5
WINNOW_W = 4
SIMILARITY_THRESHOLD = 0.8
SIMILARITY_MIN_FINGERPRINTS = 8
SIMILARITY_COMMON_SHARE = 0.5
#: A pair that passes the test above must also share answers that chance does not explain: the answers (cells)
#: they wrote alike (fingerprint Jaccard of SIMILARITY_THRESHOLD or more), each as common as the class says
#: (the share of classmates who wrote it alike, add-one smoothed), multiplied over the answers and the class's
#: pairs, must predict fewer than SIMILARITY_CHANCE pairs this alike by chance. A class of fewer than
#: SIMILARITY_CHANCE_CLASS learners cannot say how common an answer is (one in a class of 12 is 1/11), so there
#: the first test stands alone.
SIMILARITY_CHANCE = 0.05
SIMILARITY_CHANCE_CLASS = 30
#: Similar pairs summary.html shows side by side (and summary.json gives the cells of); the rest are listed by name.
#: Every flagged pair in any class but one of mass copying (on bench/similarity.py's class of 123 learners, 6
#: pairs are flagged): the bound keeps such a class's page and summary.json from growing by the square.
SIMILAR_SHOWN = 200

#: Longest piece of learner text (a message, a value, a file name) any output keeps; the rest is cut with a
#: note (:func:`grader.text.plain`), so one learner cannot flood a gradebook, a page or a terminal.
MAX_TEXT_CHARS = 4000

#: Columns self-check's printed feedback is wrapped to, at spaces (:func:`grader.text.wrapped`): JupyterLab breaks
#: an output line wider than its cell anywhere, mid-word ("the ti" / "me in seconds"), so no line may need it.
FEEDBACK_COLUMNS = 80

#: When the grader runs as root, each worker runs as uid (and gid) ``WORKER_UID_BASE + its pid``: a user of its
#: own, above the ranges that systems, desktops and containers hand out.
WORKER_UID_BASE = 1_900_000_000

#: The metadata key by which each field of :class:`Limits`, :class:`WorkerMode` and ``GradeOptions`` says whether
#: it can change a score: a stored grade is stale when one that can has changed (grader/staleness.py), and
#: tests/test_regrade.py fails for a field that does not say.
AFFECTS_SCORE = "affects_score"


def option(default: _T, *, affects_score: bool) -> _T:
    """A field of options with its default, saying whether a different value can change a score."""
    return field(default=default, metadata={AFFECTS_SCORE: affects_score})


@dataclass(frozen=True)
class Limits:
    """Resource limits for the process that runs learner code (how it runs is its :class:`WorkerMode`)."""

    timeout: float = option(30.0, affects_score=True)
    """Wall-clock seconds for running the whole notebook."""
    call_timeout: float = option(5.0, affects_score=True)
    """Wall-clock seconds for one call of a learner function from a hidden test."""
    calls_timeout: float = option(60.0, affects_score=True)
    """Wall-clock seconds all the hidden tests' calls to one notebook's functions may take together (an honest
    notebook's take 1-2 s), with every restart a call's failure costs (a worker started again, the cells run
    again): a notebook whose every function sleeps just under ``call_timeout``, or kills its worker, cannot hold
    a grading process for many minutes. Once spent, every further call fails at once (``testing.LearnerHung``)."""
    boot_timeout: float = option(60.0, affects_score=True)
    """Wall-clock seconds a worker may take to start (import IPython) before the notebook's clock starts."""
    memory_mb: int = option(2048, affects_score=True)
    """Address-space limit of the worker."""
    max_processes: int = option(64, affects_score=True)
    """Processes and threads the worker may have at once (``RLIMIT_NPROC``: root is exempt, so a root grader gives
    the worker a uid of its own; see SECURITY.md)."""
    max_file_mb: int = option(16, affects_score=True)
    """Largest file the worker may write."""
    max_open_files: int = option(256, affects_score=True)
    """Files the worker may have open at once (``RLIMIT_NOFILE``)."""
    output_kb: int = option(64, affects_score=False)
    """What the worker prints that is kept, to quote when a worker dies before running the notebook; the rest
    is read and thrown away (so the worker never blocks on a full pipe). No report shows learner output."""
    max_message_kb: int = option(1024, affects_score=True)
    """Largest single value a learner function may send back across the channel."""
    max_message_items: int = option(100_000, affects_score=True)
    """List items and dict entries in one message from the worker, all levels together: the grader counts them
    before it does any work on the message."""
    max_message_functions: int = option(16, affects_score=True)
    """Functions (callable references) in one message from the worker; each becomes a proxy in the grader."""
    max_text_chars: int = option(65_536, affects_score=True)
    """Characters in one string from the worker (a value, an exception message)."""
    max_call_depth: int = option(8, affects_score=True)
    """Calls nested through the channel at once: the grader calls a learner function (1), which calls a stand-in
    the test lent it, which calls the learner's function back (2), ... A test needs 2; deeper is refused with
    ``CallDepthExceeded``."""
    tmpfs_mb: int = option(64, affects_score=True)
    """Size of the worker's private ``/tmp`` and ``/dev/shm`` under bubblewrap; the worker works in its ``/tmp``, so
    this bounds what a learner's notebook writes."""

    @property
    def budget(self) -> TimeBudget:
        """The clocks these limits give (:class:`TimeBudget`): every deadline of grading is derived from it."""
        return TimeBudget.of(self)


DEFAULT_LIMITS = Limits()


def limits_for(timeout: float | None) -> Limits:
    """The limits a command line gives: the defaults, with ``--timeout`` for the notebook's run (None: the default)."""
    return DEFAULT_LIMITS if timeout is None else replace(DEFAULT_LIMITS, timeout=timeout)


#: Learner calls at their limit that a worker's CPU-time limit allows beyond the notebook's run, and the margin
#: on top (see :attr:`TimeBudget.cpu_seconds`).
CPU_CALLS, CPU_MARGIN_SECONDS = 10, 30
#: Seconds of CPU time past that limit (its soft one, SIGXCPU) at which the kernel kills the worker (the hard one,
#: SIGKILL): for code that ignores SIGXCPU; the soft limit's signal is what tells the learner "out of CPU time".
CPU_KILL_GRACE_SECONDS = 5
#: Seconds beyond the calls that ``grade`` waits for a daemon's answer (:attr:`TimeBudget.daemon_reply`).
DAEMON_REPLY_MARGIN_SECONDS = 10.0


@dataclass(frozen=True)
class TimeBudget:
    """Every clock of grading one notebook, derived from its :class:`Limits` and nowhere else, so that each moves
    with the limit it comes from (tests/test_registries.py changes each limit and watches its clocks move).

    The wall clocks (``boot``, ``notebook``, ``call``) say where time ran out and are what a learner is told;
    the CPU-time limit is only the backstop for a worker whose grader is gone, so it is longer than they are."""

    boot: float
    """Seconds a worker (or a zygote) may take to start, before the notebook's clock starts."""
    notebook: float
    """Seconds the notebook's cells may run, all together."""
    call: float
    """Seconds one call of a learner function may take: a hidden test's call from the grading process, a lent
    call to the lender, a self-check or nbgrader cell's call in the learner's own kernel."""
    calls: float
    """Seconds the hidden tests' calls to one notebook's functions may take together, with the restarts their
    failures cost: each call's deadline (and each run of the notebook again) is the sooner of its own limit and
    what is left of it (``execute/target.py``). So a notebook's code is given at most ``boot + notebook + calls``
    seconds and one more boot, however its calls fail."""

    @classmethod
    def of(cls, limits: Limits) -> TimeBudget:
        return cls(
            boot=limits.boot_timeout, notebook=limits.timeout, call=limits.call_timeout, calls=limits.calls_timeout
        )

    @property
    def cpu_seconds(self) -> int:
        """``RLIMIT_CPU`` of a worker and of the zygote it is forked from: the notebook's run, ``CPU_CALLS``
        calls at their limit and a margin."""
        return int(self.notebook + CPU_CALLS * self.call + CPU_MARGIN_SECONDS)

    @property
    def daemon_reply(self) -> float:
        """Seconds ``grade`` waits for the daemon's answer to one notebook before grading it cold."""
        return self.boot + self.notebook + DAEMON_REPLY_CALLS * self.call + DAEMON_REPLY_MARGIN_SECONDS

    @property
    def daemon_hello(self) -> float:
        """Seconds ``grade`` waits for a daemon to greet it before asking anything, then grades cold: one learner
        call's limit. A live daemon greets from a thread of its own at once, however busy it is; one that does not
        is stopped (``kill -STOP``) or starved, and waiting ``daemon_reply`` for it would cost minutes."""
        return self.call


@dataclass(frozen=True)
class WorkerMode:
    """How the process that runs learner code runs (:class:`Limits` say how much it may use): its isolation level,
    and whether the cells run in a real Jupyter kernel. Carried beside the limits to everything that starts one."""

    isolation: str | None = option(None, affects_score=True)
    """``auto`` or a level of ``grader.execute.sandbox.LEVELS``; None reads ``$GRADER_ISOLATION`` (default ``auto``)."""
    kernel: bool = option(False, affects_score=True)
    """Run the cells in a real Jupyter kernel (ipykernel, driven by nbclient) inside the same sandbox, for
    fidelity with Jupyter and nbgrader; a kernel started per notebook makes it much slower (bench/RESULTS.md)."""


DEFAULT_MODE = WorkerMode()

#: Longest sequence a hidden suite's stand-in builds or records for learner code in one call (a ``generate``'s
#: prompt plus its ``n`` new tokens; every token a recording ``next_token`` keeps in one test). The tests pass a
#: few dozen; the bound keeps what a learner's arguments can make the trusted side do small and linear.
STAND_IN_MAX_TOKENS = 10_000


#: A lesson's mistakes corpus: ``<lesson folder>/mistakes/*.py``, one realistic answer per file, each declaring
#: the verdict it expects per question (see ``grader/authoring/corpus.py`` and ``exercises/decode/mistakes/README.md``).
MISTAKES_FOLDER = "mistakes"


#: The folder of a course that holds its lessons, one folder with a ``lesson.toml`` each.
LESSONS_FOLDER = "exercises"


def lessons_root(here: Path | None = None) -> Path:
    """Where lesson definitions live when ``--lessons`` is not given, found in this order:

    ``$GRADER_LESSONS``; the current folder (``here``) if its folders hold ``lesson.toml`` files; the nearest
    ``exercises/`` holding some in the current folder or one above it (a learner's kernel runs in the course's
    ``notebooks/``); the ``exercises/`` of the checkout the package runs from. An installed package carries no
    lessons: they are the course's, so a course folder must be found, or :class:`UsageError` says how to name one.
    """
    env = os.environ.get(LESSONS_ENV)
    if env:
        return Path(env)
    here = Path.cwd() if here is None else here
    if _holds_lessons(here):
        return here
    checkout = Path(__file__).resolve().parent.parent
    for folder in (here, *here.parents, checkout):
        if _holds_lessons(folder / LESSONS_FOLDER):
            return folder / LESSONS_FOLDER
    raise UsageError(
        f"No lessons found: no {LESSONS_FOLDER}/ folder of lessons (each a folder with a lesson.toml) in {here} or "
        f"above it. Run grade in your course folder, or name the folder of lessons with --lessons FOLDER "
        f"or {LESSONS_ENV}=FOLDER."
    )


def _holds_lessons(folder: Path) -> bool:
    try:
        return any(folder.glob("*/lesson.toml"))
    except OSError:  # an unreadable folder holds none we can use
        return False


def cache_dir() -> Path:
    """``$GRADER_CACHE_DIR``, else ``inference-grader`` in the user's cache folder (``~/.cache`` on Linux)."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("inference-grader"))


#: Where Gradescope lays out an autograder run (``source/``, ``submission/``, ``results/``); ``grade gradescope
#: --root`` and the bundle's ``run_autograder`` read ``$AUTOGRADER_ROOT`` first, so a test can point elsewhere.
GRADESCOPE_ROOT = Path("/autograder")

#: Gradescope ``visibility`` of the results and of each question's test: ``visible`` shows the feedback at once
#: (others: ``hidden``, ``after_due_date``, ``after_published``).
GRADESCOPE_VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
GRADESCOPE_VISIBILITY = "visible"

#: Seconds a learner's ``check()``, ``submit()`` or ``grade NOTEBOOK`` waits for the course service's answer
#: (grader/service/client.py): a check is a whole notebook's grading on the service, behind other learners'.
SERVICE_TIMEOUT = 180.0


# -- the course service (``grade serve``) --------------------------------------------------------------------

#: Where ``grade serve`` listens unless told: this machine only; a TLS reverse proxy faces the network (README).
SERVICE_HOST = "127.0.0.1"
SERVICE_PORT = 8470
#: The service's store, in the course folder (the lessons folder's parent): hand-ins and checks.
SERVICE_DATABASE = "service.sqlite"
#: The roster ``grade serve`` reads from the course folder unless ``--roster`` names one (``learner,identity``).
ROSTER_FILE = "roster.csv"


@dataclass(frozen=True)
class ServiceLimits:
    """How much one client may ask of the course service, so that nobody else pays for it."""

    checks_burst: int = 30
    """Checks a learner may send at once (more than any lesson's check cells, so that *Run All* on a released
    notebook is answered in full: a learner's checks are graded one at a time, ``checks_in_flight``, so a burst
    holds one grading process, never several) ..."""
    check_every: float = 6.0
    """... then one every this many seconds (429 with ``Retry-After`` beyond it)."""
    submits_burst: int = 20
    """Hand-ins a learner may send at once, then one every ``check_every`` seconds (a hand-in is stored, so
    a flood of them would fill the disk; a learner resubmitting by hand never meets this)."""
    queue_per_process: int = 16
    """Checks in the service at once (graded or waiting), per grading process; the next gets 503. Sized to what a
    process drains within the wait a 503 asks for (``retry_after``): a check grades the whole notebook, about
    0.3 s of CPU for Decode (bench/service_load.py), so the last of 16 is answered within about 5 s; with 4, ten
    learners checking at once on two processes turned two away every time. Bounded all the same (each check's
    body is at most 4 MB, and one learner holds one place: ``checks_in_flight``)."""
    checks_in_flight: int = 1
    """Of those, one learner's at most; their next gets 429 until one is answered (a slow check holds a grading
    process for up to a notebook's whole budget: without this, one learner within their rate fills the queue)."""
    retry_after: float = 5.0
    """What a 503 tells the client to wait before it tries again."""
    header_seconds: float = 10.0
    """A connection must send a request's headers within this (a slow client is cut off: slowloris)."""
    body_seconds: float = 30.0
    """... and its body within this."""
    keep_alive_seconds: float = 5.0
    """An idle kept-alive connection is closed after this."""


DEFAULT_SERVICE_LIMITS = ServiceLimits()


#: What the course's learner install (``pip install '.[learner]'``, pyproject.toml) gives a notebook to import,
#: by top-level module, with the distribution that provides it. A grading machine that lacks one cannot grade a
#: right notebook that imports it: such a notebook is not graded, with the package to install named
#: (:func:`grader.pipeline.missing_on_machine`), never scored as the learner's error; and the versions installed
#: where grading runs are part of what a grade depends on (:func:`grader.staleness.fingerprint`). numpy is also a
#: dependency of the grading install itself; ``tests/test_learner_packages.py`` checks the table against
#: pyproject.toml.
LEARNER_MODULES: dict[str, str] = {
    "numpy": "numpy",
    "matplotlib": "matplotlib",
    "PIL": "pillow",
    "ipywidgets": "ipywidgets",
}
