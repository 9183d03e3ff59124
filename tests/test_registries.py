"""Each registry is one table: what must agree with it is derived from it, and these tests say where it could drift."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import click
import pytest

from grader.errors import LessonError
from grader.lessons import load_lesson
from grader.model import KINDS, REVEAL_POLICIES, QuestionKind, Reveal


def test_question_kinds_are_one_table() -> None:
    """The loader's kinds, their reveal defaults and the type the pipeline passes around are the same set."""
    assert set(KINDS) == set(get_args(QuestionKind)) and all(name == kind.name for name, kind in KINDS.items())
    assert {kind.reveal for kind in KINDS.values()} <= set(REVEAL_POLICIES) == set(get_args(Reveal))


def _lesson(tmp_path: Path, kinds: list[str]) -> Path:
    folder = tmp_path / "lessons" / "tiny"
    (folder / "suites").mkdir(parents=True)
    questions = "".join(f'[[questions]]\nid = "q{i}"\nkind = "{k}"\npoints = 1\n\n' for i, k in enumerate(kinds))
    folder.joinpath("lesson.toml").write_text(
        f'id = "tiny"\nnotebook = "n.ipynb"\nsolution = "s.ipynb"\n\n{questions}', encoding="utf-8"
    )
    return folder.parent


def test_each_kind_gets_its_default_reveal(tmp_path: Path) -> None:
    lesson = load_lesson("tiny", _lesson(tmp_path, list(KINDS)))
    assert {q.kind: q.reveal for q in lesson.questions} == {name: kind.reveal for name, kind in KINDS.items()}


def test_a_kind_outside_the_table_is_refused_with_the_table(tmp_path: Path) -> None:
    with pytest.raises(LessonError, match="function"):
        load_lesson("tiny", _lesson(tmp_path, ["value", "essay"]))


def _compared_kinds(package: Path) -> list[str]:
    """Where a module of ``package`` compares a question's kind with a kind's name (``q.kind == "function"``,
    ``kind in ("value", "choice")``)."""
    import ast

    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            parts = list(ast.walk(node))
            kind = any(
                (isinstance(p, ast.Attribute) and p.attr == "kind") or (isinstance(p, ast.Name) and p.id == "kind")
                for p in parts
            )
            if kind and any(isinstance(p, ast.Constant) and p.value in KINDS for p in parts):
                found.append(f"{path.relative_to(package)}:{node.lineno}")
    return found


def test_no_module_compares_a_question_kinds_name(tmp_path: Path) -> None:
    """What a kind does is its row's flags (``KINDS[q.kind].is_called``, ``.audited``): a name compared anywhere
    would miss a new kind (the old code tested ``q.kind == "function"`` in five modules)."""
    package = Path(__file__).resolve().parent.parent / "grader"
    found = _compared_kinds(package)
    assert not found, f"read the kind's row (grader.model.KINDS), not its name: {found}"
    (tmp_path / "m.py").write_text('functions = [q for q in qs if q.kind == "function"]\n', encoding="utf-8")
    assert _compared_kinds(tmp_path) == ["m.py:1"]  # the check can fail


# LMS formats: one row of grader.batch.lms_table.FORMATS each (an LMS's, of its row of LMSES); what the commands,
# the chapter and the docs offer is derived.


def _command(command: str) -> click.Command:
    from grader.cli import main

    return main.commands[command]


def _choices(command: str, option: str) -> list[str]:
    found = next(p for p in _command(command).params if p.name == option)
    assert isinstance(found.type, click.Choice)
    return list(found.type.choices)


def test_the_commands_offer_each_lms_format_of_the_table() -> None:
    from grader.batch.lms_table import FORMATS

    assert _choices("batch", "export") == _choices("export", "to") == _choices("chapter", "export") == list(FORMATS)


def test_each_lms_format_names_a_download_and_is_documented() -> None:
    """A format matches the learners one LMS's download names (grader/batch/names.py reads those names), and the
    README's table of imports has its row."""
    from grader.batch.lms_table import FORMATS, LMS_PATTERNS

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    for name, form in FORMATS.items():
        assert form.file_name == f"{name}-import.csv"
        assert not form.lms or form.lms in {p.name for p in LMS_PATTERNS}, name
        assert not form.lms or f"| `{name}` |" in readme, f"README's LMS table has no row for {name}"


def test_each_lms_row_agrees_with_itself_and_the_commands_read_it() -> None:
    """A row's parts name its LMS once: its import file and its folder names are that LMS's; ``grade roster --lms``
    and ``grade export``'s header-words option come from the rows."""
    from grader.batch.lms_table import HEADER_WORDS, LMSES, ROSTER_EXPORTS
    from grader.batch.roster import EXPORTS

    for name, lms in LMSES.items():
        assert name == lms.name == lms.export.lms and (lms.folders is None or lms.folders.name == name)
    assert _choices("roster", "lms") == list(ROSTER_EXPORTS) == list(EXPORTS)
    assert ROSTER_EXPORTS == tuple(lms.export.name for lms in LMSES.values() if lms.roster)
    assert HEADER_WORDS in {o for p in _command("export").params for o in p.opts}


def _lms_formats() -> list[str]:
    from grader.batch.lms_table import FORMATS

    return [name for name, form in FORMATS.items() if form.lms]


@pytest.mark.parametrize("to", _lms_formats())
def test_each_lms_reads_its_file_as_written(to: str) -> None:
    """Every column the format holds (a chapter's one per lesson) reaches the right learner, blank cells
    unchanged, as the LMS's own rules (tests/lms_rules.py) read the file."""
    from grader.batch.lms import sheet_text
    from grader.batch.lms_table import FORMATS
    from grader.batch.model import Identity
    from grader.batch.sheet import Column, Line, Sheet
    from tests.lms_rules import READ

    assert to in READ, f"tests/lms_rules.py has no rules for {to}: write how that LMS reads an import file"
    lms = FORMATS[to].lms
    columns = (Column("Request", 10), Column("Decode", 35)) if FORMATS[to].chapter else (Column("Decode", 35),)
    grades = {"101": ("7", "30"), "102": ("", "12.5")}
    lines = tuple(Line(Identity(lms, key, f"learner {key}"), cells[-len(columns) :]) for key, cells in grades.items())
    data = sheet_text(Sheet(columns, lines, stamp="2026-12-01T22:00:00+00:00"), to).encode("utf-8")
    for i, column in enumerate(columns):
        found = READ[to](data, set(grades), column.max_score, i)
        expected = {key: cells[-len(columns) + i] for key, cells in grades.items()}
        assert found.grades == {key: float(cell) for key, cell in expected.items() if cell}
        assert found.unchanged == {key for key, cell in expected.items() if not cell}


def test_a_chapter_export_is_the_batch_export_of_each_lesson_side_by_side() -> None:
    """One writer per LMS: a chapter of one lesson writes the file that lesson's batch export writes."""
    from grader.batch.chapter import LessonColumn, chapter_export, chapter_of
    from grader.batch.lms import export_text
    from grader.batch.lms_table import CHAPTER_EXPORTS, FORMATS
    from grader.batch.model import Identity, Row
    from grader.batch.sheet import Column
    from grader.model import QuestionResult, Report

    assert CHAPTER_EXPORTS == tuple(name for name, form in FORMATS.items() if form.chapter)
    for to in CHAPTER_EXPORTS:
        who = Identity(FORMATS[to].lms, "101", "lovelaceada")
        report = Report("decode", "a.ipynb", 30, 35, (QuestionResult("q", 30, 35, "partial"),))
        rows = [Row("ada", "a.ipynb", "graded", "", report, identity=who)]
        chapter = chapter_of([(LessonColumn("decode", "Decode", 35), rows)])
        assert chapter_export(chapter, to)[0] == export_text(rows, Column("Decode", 35), to)


#: What marks one LMS's download in a file name: a rule of that LMS, written only in its row of the table.
_MARKERS = ("assignsubmission", "_attempt_", "attempt_\\d", "LATE_")

#: Modules that may write an LMS's name in code, and why each is no second copy of the table.
LMS_NAMES_ALLOWED = {
    # the table itself
    "batch/lms_table.py",
}


def _lms_rules_outside(package: Path) -> list[str]:
    """Where a module of ``package`` writes an LMS's name (``"Canvas"``, ``"moodle"``: any case) or a download's
    marker as a constant in code (docstrings are prose; an f-string's parts are prose too unless they are a name
    alone), outside :data:`LMS_NAMES_ALLOWED`."""
    import ast

    from grader.batch.lms_table import LMSES

    names = {n.casefold() for lms in LMSES.values() for n in (lms.name, lms.export.name)}
    found = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        if where in LMS_NAMES_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
                if node.value.casefold() in names or any(m in node.value for m in _MARKERS):
                    found.append(f"{where}:{node.lineno}: {node.value[:40]!r}")
    return found


def test_every_lms_rule_is_in_the_lms_table(tmp_path: Path) -> None:
    """Each LMS's rules (its download's names and markers, its hand-in time, its import file, its roster export)
    are fields of its row of grader.batch.lms_table.LMSES, which every module reads: an LMS's name compared or a
    download's marker matched anywhere else is a second copy (the old code had them in five places)."""
    package = Path(__file__).resolve().parent.parent / "grader"
    found = _lms_rules_outside(package)
    assert not found, f"read the LMS's row (grader.batch.lms_table.LMSES), not its name: {found}"
    (tmp_path / "late.py").write_text('def f(lms):\n    return lms == "Canvas"\n', encoding="utf-8")
    (tmp_path / "names.py").write_text('import re\nMARK = re.compile(r"_\\d+_assignsubmission_")\n', encoding="utf-8")
    assert len(_lms_rules_outside(tmp_path)) == 2  # the check can fail


# Isolation levels: one row of grader.execute.sandbox.LEVELS each, whose capabilities the rest of execute/ reads.


def test_no_module_compares_an_isolation_levels_name() -> None:
    """What a level can do is its row's capabilities: a name compared anywhere but the table would miss a new
    backend (the old code tested ``level == "bubblewrap"`` in five modules)."""
    import ast

    from grader.execute.sandbox import LEVELS

    package = Path(__file__).resolve().parent.parent / "grader"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                names = [c for c in ast.walk(node) if isinstance(c, ast.Constant) and c.value in LEVELS]
                found += [f"{path.relative_to(package)}:{node.lineno}" for _ in names[:1]]
    assert not found, f"compare the level's capabilities (sandbox.LEVELS), not its name: {found}"


#: Where a hostile test may name an isolation level: a test of that backend's own machinery, not of a promise
#: every level keeps (``file: the constant`` and why).
HOSTILE_LEVEL_NAMES = {
    # bubblewrap's own mask of the course folders (``bubblewrap._visible_dirs``), which no other level has
    ("test_hostile.py", "bubblewrap"),
}


def _named_levels(tests: Path) -> set[tuple[str, str]]:
    """Each (hostile test file, level name) where the file names a level in code (docstrings are prose)."""
    import ast

    from grader.execute.sandbox import LEVELS

    found = set()
    for path in sorted(tests.glob("test_hostile*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        prose = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        found |= {
            (path.name, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in LEVELS and id(node) not in prose
        }
    return found


def test_the_hostile_tests_run_every_isolation_level(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The hostile tests' levels are sandbox.LEVELS' rows (tests/test_hostile.py's ``level_params``, which every
    hostile module reads): a row added there is exercised, skipped only where it cannot run, with why; and no
    hostile test names a level in its code but where :data:`HOSTILE_LEVEL_NAMES` says why."""
    from grader.execute.levels import Level, Wrapping
    from grader.execute.sandbox import LEVELS
    from tests import test_hostile, test_hostile_restarts, test_hostile_signals

    for module in (test_hostile, test_hostile_restarts, test_hostile_signals):
        assert [p.values[0] for p in module.LEVELS] == list(LEVELS), module.__name__
    zygote = {f"{name}+zygote" for name, level in LEVELS.items() if level.zygote}
    worker_levels = [p.values[0] for p in test_hostile.WORKER_LEVELS]
    assert set(worker_levels) == {*LEVELS, *zygote} and len(worker_levels) == len(LEVELS) + len(zygote)

    def wrap(*args: object) -> Wrapping:
        raise AssertionError("not started here")

    missing = Level("container", lambda: "no container runtime here", wrap, False, False, False, False, True, True)
    monkeypatch.setitem(LEVELS, "container", missing)
    added = {p.values[0]: p.marks for p in test_hostile.level_params(zygotes=True)}
    assert set(added) == {*LEVELS, *zygote, "container", "container+zygote"}
    assert [m.kwargs["reason"] for m in added["container"]] == ["container: no container runtime here"]

    tests = Path(__file__).resolve().parent
    assert _named_levels(tests) <= HOSTILE_LEVEL_NAMES
    (tmp_path / "test_hostile_x.py").write_text('MODE = WorkerMode(isolation="process")\n', encoding="utf-8")
    assert _named_levels(tmp_path) == {("test_hostile_x.py", "process")}  # the check can fail


def test_auto_takes_the_strongest_level_that_runs_here(monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.config import WorkerMode
    from grader.environment import ISOLATION_ENV
    from grader.errors import UsageError
    from grader.execute.sandbox import LEVELS, choose_level

    monkeypatch.delenv(ISOLATION_ENV, raising=False)
    runs = {name: level.problem() is None for name, level in LEVELS.items()}
    assert choose_level(WorkerMode())[0].name == next(name for name, ok in runs.items() if ok)
    assert list(runs)[-1] == "process" and runs["process"]  # the last resort runs anywhere
    with pytest.raises(UsageError, match=", ".join(["auto", *LEVELS])):
        choose_level(WorkerMode(isolation="chroot"))


def test_a_new_backend_is_one_row(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A backend added as one row (here ``env``, standing for a container runtime's command) runs a learner's
    notebook and answers calls, through the same start, limits and sweep every level gets."""
    import nbformat

    from grader.config import DEFAULT_LIMITS, Limits, WorkerMode
    from grader.execute.levels import DROP_NONE, Level, Wrapping
    from grader.execute.sandbox import LEVELS
    from grader.execute.worker import start_worker
    from grader.read import read_submission
    from tests.conftest import SQUARES_SOLVED, notebook

    def wrap(workdir: Path, limits: Limits, root: bool, why: str) -> Wrapping:
        return Wrapping(("env", "GRADER_BACKEND=env"), DROP_NONE, "env: no isolation at all (a test's backend)")

    row = Level("env", lambda: None, wrap, False, False, False, False, False, False)
    monkeypatch.setitem(LEVELS, "env", row)
    path = tmp_path / "ada.ipynb"
    path.write_text(nbformat.writes(notebook([*SQUARES_SOLVED, "import os\nbackend = os.environ['GRADER_BACKEND']"])))
    worker, execution = start_worker(read_submission(path), DEFAULT_LIMITS, WorkerMode(isolation="env"))
    with worker:
        assert execution.isolation.startswith("env:") and worker.level == "env"
        assert worker.value("backend") == "env" and worker.call("square", [7], {}, {}).value == 49


# The time budget: every clock of grading derived from the Limits, in one object (config.TimeBudget).

#: Each clock of the budget and the limits it is derived from.
CLOCKS = {
    "boot": {"boot_timeout"},
    "notebook": {"timeout"},
    "call": {"call_timeout"},
    "calls": {"calls_timeout"},
    "cpu_seconds": {"timeout", "call_timeout"},
    "daemon_reply": {"boot_timeout", "timeout", "call_timeout"},
    "daemon_hello": {"call_timeout"},
}


def test_every_clock_of_the_budget_is_listed_with_its_sources() -> None:
    from dataclasses import fields

    from grader.config import TimeBudget

    derived = {name for name, value in vars(TimeBudget).items() if isinstance(value, property)}
    assert {f.name for f in fields(TimeBudget)} | derived == set(CLOCKS)


@pytest.mark.parametrize("limit", sorted(set().union(*CLOCKS.values())))
def test_each_clock_moves_with_its_limit_and_no_other(limit: str) -> None:
    from dataclasses import replace

    from grader.config import DEFAULT_LIMITS

    before, after = DEFAULT_LIMITS.budget, replace(DEFAULT_LIMITS, **{limit: getattr(DEFAULT_LIMITS, limit) * 3}).budget
    moved = {clock for clock in CLOCKS if getattr(before, clock) != getattr(after, clock)}
    assert moved == {clock for clock, sources in CLOCKS.items() if limit in sources}


def test_the_deadlines_outside_a_worker_come_from_the_budget_too() -> None:
    """The daemon's answer is awaited as long as the request's limits need (``--timeout``), and self-check and
    nbgrader's cells time a call with the limits they are given, not a constant of their own."""
    from grader.config import DEFAULT_LIMITS, Limits, limits_for
    from grader.execute.worker import guard
    from grader.serve.client import reply_seconds
    from grader.serve.protocol import NotebookRequest
    from grader.suites.namespace import NamespaceTarget

    short, long = NotebookRequest("a.ipynb", "/", timeout=30.0), NotebookRequest("a.ipynb", "/", timeout=900.0)
    assert (
        reply_seconds(long) - reply_seconds(short) == 870.0
        and reply_seconds(long) == limits_for(900).budget.daemon_reply
    )
    assert NamespaceTarget({}).budget == DEFAULT_LIMITS.budget
    quick = Limits(call_timeout=0.5)
    assert NamespaceTarget({}, quick.budget).budget.call == 0.5 == guard(quick).timeout


def test_a_workers_cpu_limit_is_the_budgets(tmp_path: Path) -> None:
    """RLIMIT_CPU, once a formula of its own in execute/limits.py, is the budget's, seen from inside a worker."""
    import nbformat

    from grader.config import Limits, WorkerMode
    from grader.execute.worker import start_worker
    from grader.read import read_submission
    from tests.conftest import notebook

    path = tmp_path / "cpu.ipynb"
    path.write_text(nbformat.writes(notebook(["import resource\ncpu = resource.getrlimit(resource.RLIMIT_CPU)[0]"])))
    limits = Limits(timeout=7.0, call_timeout=1.5)
    worker, _ = start_worker(read_submission(path), limits, WorkerMode(isolation="process"))
    with worker:
        assert worker.value("cpu") == limits.budget.cpu_seconds == 7 + 10 * 1.5 + 30


# A batch's data model: one module (grader/batch/model.py), which report/ renders and every batch module reads.


def test_a_batchs_data_model_is_defined_once() -> None:
    """Row, Identity, Lateness and BatchSummary are classes of grader/batch/model.py and of no other module of the
    batch or of report/ (service/tokens.py's ``Identity`` is a token's, another thing)."""
    import ast

    from grader.batch import model

    names = {"Row", "Identity", "Lateness", "BatchSummary"}
    package = Path(__file__).resolve().parent.parent / "grader"
    found = {
        f"{path.relative_to(package)}:{node.name}"
        for folder in ("batch", "report")
        for path in sorted((package / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and node.name in names
    }
    assert found == {f"batch/model.py:{name}" for name in names}
    assert all(getattr(model, name).__module__ == "grader.batch.model" for name in names)
