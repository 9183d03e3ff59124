"""The Decode lesson end to end: the solution earns full marks through the CLI, the stubs nothing, and mistakes
cost points on their own questions only, with feedback that names what went wrong.

That each mistake of the corpus costs its own question only, its feedback naming it, is the corpus gate's
(tests/test_lesson_gates.py, every lesson); here, mistakes placed in the answer cells, through ``grade``."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from grader.config import DEFAULT_LIMITS, DEFAULT_MODE
from grader.execute.runner import Workers
from grader.lessons import load_lesson
from grader.model import Lesson, Report, Submission
from grader.pipeline import grade_submission, lent_solution
from grader.read import read_submission
from grader.suites.session import SuiteSession
from tests.conftest import REPO, run_grade
from tests.fixtures.decode_mistakes import MISTAKES

SOLUTION = REPO / "solutions" / "decode.ipynb"
NOTEBOOK = REPO / "notebooks" / "decode.ipynb"


def with_answers(tmp_path: Path, replacements: dict[str, str], name: str = "learner.ipynb") -> Path:
    """The solution notebook with some answer cells (found by cell id: the question's) replaced."""
    nb = nbformat.read(SOLUTION, as_version=4)
    for cell in nb.cells:
        if cell.get("id") in replacements:
            cell.source = replacements[cell["id"]]
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def by_id(report: dict) -> dict[str, dict]:
    return {q["id"]: q for q in report["questions"]}


def cli_json(path: Path) -> dict:
    result = run_grade(str(path), "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _graded(submission: Submission, suites: SuiteSession) -> Report:
    """``submission`` graded by the pipeline's recipe in the shared session, with workers of its own."""
    with Workers(DEFAULT_LIMITS, DEFAULT_MODE) as workers:
        return grade_submission(submission, suites.lesson, suites, workers, lent_solution(suites.lesson))


def test_solution_gets_full_marks_through_the_cli() -> None:
    report = cli_json(SOLUTION)
    assert report["score"] == report["max_score"] > 0
    assert {q["status"] for q in report["questions"]} == {"passed"}
    assert report["errors"] == []


@pytest.mark.slow
def test_untouched_notebook_scores_zero_and_says_not_attempted() -> None:
    report = cli_json(NOTEBOOK)
    assert report["score"] == 0
    assert {q["status"] for q in report["questions"]} == {"not-attempted"}
    table = run_grade(str(NOTEBOOK))
    assert table.returncode == 0 and "Not attempted yet" in table.stdout


def test_a_partly_wrong_notebook_loses_points_only_where_it_is_wrong(tmp_path: Path) -> None:
    wrong = {q: MISTAKES[q][0] for q in ("ms_per_token", "generate", "kv_decode_time")}
    report = by_id(cli_json(with_answers(tmp_path, wrong)))
    for qid, q in report.items():
        if qid in wrong:
            assert q["score"] < q["max_score"] and q["feedback"], qid
        else:
            assert q["score"] == q["max_score"], (qid, q["feedback"])


@pytest.fixture(scope="module")
def decode_suites(suite_session: Callable[[Lesson], SuiteSession]) -> SuiteSession:
    return suite_session(load_lesson("decode"))


def test_the_lesson_definition_matches_the_notebooks() -> None:
    lesson = load_lesson("decode")
    ids = {q.id for q in lesson.questions}
    for path in (SOLUTION, NOTEBOOK):
        nb = nbformat.read(path, as_version=4)
        answers = [c.id for c in nb.cells if c.cell_type == "code" and c.id in ids]
        checks = [c.source for c in nb.cells if c.id.startswith("check_") and c.cell_type == "code"]
        assert sorted(answers) == sorted(ids) and sorted(checks) == sorted(f'check("{q}")' for q in ids), path


def test_a_generate_that_modifies_the_prompt_is_told_so(tmp_path: Path, decode_suites: SuiteSession) -> None:
    """Arguments cross to the worker as copies; the worker reports in-place changes so this is still caught."""
    mutating = (
        "def generate(next_token, prompt, n):\n"
        "    for _ in range(n):\n"
        "        prompt.append(next_token(prompt))\n"
        "    return prompt"
    )
    submission = read_submission(with_answers(tmp_path, {"generate": mutating}))
    report = _graded(submission, decode_suites)
    generate = next(q for q in report.questions if q.id == "generate")
    assert generate.score < generate.max_score
    assert any("changed the caller's prompt list" in line for line in generate.feedback), generate.feedback


def test_a_choice_answered_badly_is_told_the_options_never_the_right_letter(
    tmp_path: Path, decode_suites: SuiteSession
) -> None:
    """A word is told the options' letters (no example that happens to be the right answer); a letter outside
    the options is told so, not "not the right option"."""
    answers = {
        "answer_sequential": 'answer_sequential = "No"',
        "answer_prefill_vs_decode": 'answer_prefill_vs_decode = "the weights are read once per token"',
        "answer_batching_bug": 'answer_batching_bug = "E"',
        "answer_rate_definitions": 'answer_rate_definitions = "F"',
    }
    submission = read_submission(with_answers(tmp_path, answers))
    report = _graded(submission, decode_suites)
    solution = read_submission(SOLUTION)
    results = {q.id: q for q in report.questions}
    for qid in answers:
        source = next(c.source for c in solution.cells if f"{qid} =" in c.source)
        found = re.search(rf"{qid}\s*=\s*[\"']([A-Z])[\"']", source)
        assert found, source
        right = found.group(1)
        text = " ".join(results[qid].feedback)
        assert results[qid].score == 0, text
        assert f'"{right}"' not in text and f"'{right}'" not in text, (qid, text)
    assert "not one of A, B or C:" in " ".join(results["answer_batching_bug"].feedback)
    assert "not one of A, B, C or D:" in " ".join(results["answer_rate_definitions"].feedback)
    assert "not one of A or B:" in " ".join(results["answer_sequential"].feedback)


def test_self_check_helpers_typed_in_new_cells_are_harmless_in_a_graded_run(
    tmp_path: Path, decode_suites: SuiteSession
) -> None:
    """`hint(...)`, `check(...)` and `check_all()` in new, untagged cells (the setup cell that defines them is
    never run by the grader): no error, no points lost, nothing a report could count as an error."""
    nb = nbformat.read(SOLUTION, as_version=4)
    for source in ('hint("gb_per_step")', 'check("generate")\ncheck_all()'):
        nb.cells.insert(5, nbformat.v4.new_code_cell(source))
        nb.cells.append(nbformat.v4.new_code_cell(source))
    path = tmp_path / "helpers.ipynb"
    nbformat.write(nb, path)
    report = _graded(read_submission(path), decode_suites)
    assert report.errors == () and report.score == report.max_score, report.errors


def test_a_cell_error_names_the_code_cell_as_jupyterlab_numbers_it(tmp_path: Path, decode_suites: SuiteSession) -> None:
    """Markdown cells have no [n] in JupyterLab: the error counts code cells only, and quotes the cell's start."""
    nb = nbformat.read(SOLUTION, as_version=4)
    nb.cells.insert(9, nbformat.v4.new_code_cell("raise ValueError('here')"))
    path = tmp_path / "raises.ipynb"
    nbformat.write(nb, path)
    number = sum(c.cell_type == "code" for c in nb.cells[:10])
    assert number < 10  # the notebook has text above: counting every cell would say 10
    report = _graded(read_submission(path), decode_suites)
    assert report.errors == (
        f"Cell {number} raised ValueError: here (`raise ValueError('here')`); the cells after it still ran.",
    )


# -- Part 1 on each learner's own numbers (lesson.toml's [params]) -----------------------------------------------

PART1 = ("gb_per_step", "ms_per_token", "max_tokens_per_s")


def _suite_module(name: str) -> object:
    """A module of Decode's hidden suites, imported on its own (its catalogues are plain functions)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"decode_{name}", REPO / "exercises/decode/suites" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_on_every_set_of_numbers_the_answers_stay_apart_from_every_known_mistake() -> None:
    """A known mistake is named within 0.2 %: on every combination the lesson can give, the right answer and each
    mistake differ by more than 1 %, so no learner's right answer is told a slip and no slip passes; and no
    tokens/s is within 0.1 of a whole number, so rounding to one is always wrong."""
    from grader.params import every_params

    values: object = _suite_module("test_values")
    sets = every_params(load_lesson("decode"))
    for params in sets:
        part1 = values.Part1.of(dict(params))  # type: ignore[attr-defined]
        for expected, mistakes in (
            (part1.gb, part1.gb_mistakes()),
            (part1.ms, part1.ms_mistakes()),
            (part1.tokens_per_s, part1.tokens_mistakes()),
        ):
            numbers = [expected, *(wrong for _, _, wrong in mistakes)]
            closest = min(abs(a - b) / max(abs(a), abs(b)) for i, a in enumerate(numbers) for b in numbers[i + 1 :])
            assert closest > 0.01, (params, numbers)
        assert abs(part1.tokens_per_s - round(part1.tokens_per_s)) > 0.1, params


def _part1(numbers: dict[str, object], slip: float = 1.0) -> dict[str, object]:
    weight_bytes = float(numbers["params_b"]) * 1e9 * float(numbers["bytes_per_param"])  # type: ignore[arg-type]
    ms = weight_bytes / (float(numbers["tb_per_s"]) * 1e12) * 1e3  # type: ignore[arg-type]
    return {"gb_per_step": weight_bytes / 1e9, "ms_per_token": ms * slip, "max_tokens_per_s": 1e3 / ms}


def test_two_learners_each_get_full_marks_only_for_their_own_numbers(decode_suites: SuiteSession) -> None:
    """A Part 1 copied from another learner earns nothing, not even what would be carried from a slip."""
    from grader.params import draw
    from grader.suites.namespace import NamespaceTarget

    lesson = decode_suites.lesson
    secret = b"a-course-secret-for-this-test-only"
    ada, bob = draw(lesson, "ada", secret), draw(lesson, "bob", secret)
    assert dict(ada)["params_b"] != dict(bob)["params_b"]
    questions = frozenset(PART1)
    for mine, theirs in ((ada, bob), (bob, ada)):
        own = decode_suites.run(NamespaceTarget(_part1(dict(mine))), questions, mine)
        assert {o.status for o in own} == {"passed"}, own
        copied = decode_suites.run(NamespaceTarget(_part1(dict(theirs))), questions, mine)
        # right on another set of numbers: a copy, not a slip, so nothing is carried forward from it
        assert {o.status for o in copied} == {"failed"}, copied


def _part1_graded(decode_suites: SuiteSession, answers: dict[str, object], mine: object) -> tuple[dict, str | None]:
    """Part 1's outcomes by question on ``mine``, and the other-numbers flag the pipeline would add."""
    from grader.params import other_numbers_note
    from grader.suites.namespace import NamespaceTarget

    target = NamespaceTarget(answers)
    outcomes = decode_suites.run(target, frozenset(PART1), mine)  # type: ignore[arg-type]
    note = other_numbers_note(
        decode_suites.lesson,
        mine,
        outcomes,
        lambda qs, other: decode_suites.run(target, qs, other),  # type: ignore[arg-type]
    )
    return {o.question: o for o in outcomes}, note


def _weights_at(numbers: dict[str, object], bytes_per_param: float) -> dict[str, object]:
    """Part 1 worked right from the weights at ``bytes_per_param``, rounded as the questions ask."""
    gb = float(numbers["params_b"]) * bytes_per_param  # type: ignore[arg-type]
    ms = gb / float(numbers["tb_per_s"])  # type: ignore[arg-type]
    return {"gb_per_step": gb, "ms_per_token": round(ms, 2), "max_tokens_per_s": round(1e3 / round(ms, 2), 1)}


def test_2_bytes_per_parameter_carried_forward_costs_once_though_another_learner_is_at_26e9(
    decode_suites: SuiteSession,
) -> None:
    """The page's 13e9 parameters in FP8 at 2 bytes per parameter: 26 GB, 7.76 ms, 128.9 tokens/s, which are also
    the right answers of a 26e9 FP8 learner on the same accelerator. A known slip on the learner's own numbers
    gives the GB, so it is that slip: named on gb_per_step, the two answers worked from it credited, no flag."""
    from grader.params import default_params

    page = default_params(decode_suites.lesson)
    assert dict(page)["params_b"] == 13 and dict(page)["bytes_per_param"] == 1
    graded, note = _part1_graded(decode_suites, _weights_at(dict(page), 2), page)
    assert graded["gb_per_step"].status == "failed" and "2 bytes per parameter" in graded["gb_per_step"].message
    assert graded["gb_per_step"].slip
    for name in ("ms_per_token", "max_tokens_per_s"):
        assert graded[name].status == "passed" and graded[name].carried, graded[name]
    assert note is None, note


def test_1_byte_per_parameter_on_an_int4_model_carried_forward_costs_once(decode_suites: SuiteSession) -> None:
    """An INT4 learner who takes FP8's 1 byte per parameter gives an FP8 learner's right answers (on the page's
    accelerator, the page's own): on every INT4 set of numbers, the slip is named, the rest is carried, no flag."""
    from grader.params import every_params

    int4 = [p for p in every_params(decode_suites.lesson) if dict(p)["bytes_per_param"] == 0.5]
    assert len(int4) == 24
    for mine in int4:
        graded, note = _part1_graded(decode_suites, _weights_at(dict(mine), 1), mine)
        gb = graded["gb_per_step"]
        assert gb.status == "failed" and gb.slip and "1 byte per parameter" in gb.message, (mine, gb)
        assert "counted twice" not in gb.message  # never name a misconception that cannot apply
        assert {graded[n].status for n in ("ms_per_token", "max_tokens_per_s")} == {"passed"}, (mine, graded)
        assert note is None, (mine, note)


def test_another_learners_part_1_no_slip_explains_carries_nothing_and_is_flagged(decode_suites: SuiteSession) -> None:
    """The page's learner hands in Part 1 of a 9e9 INT4 learner on an A100: no known slip on the page's numbers
    gives 4.5 GB, so it is a copy: nothing carried, and the notebook flagged."""
    from grader.params import default_params, every_params

    page = default_params(decode_suites.lesson)
    theirs = next(
        p
        for p in every_params(decode_suites.lesson)
        if dict(p)["params_b"] == 9 and dict(p)["bytes_per_param"] == 0.5 and dict(p)["tb_per_s"] == 2.039
    )
    graded, note = _part1_graded(decode_suites, _part1(dict(theirs)), page)
    assert {o.status for o in graded.values()} == {"failed"}, graded
    assert not any(o.slip or o.carried for o in graded.values())
    assert note is not None and "another learner's numbers" in note and "params_b = 9" in note, note


def test_a_1000x_slip_is_named_on_every_learners_numbers(decode_suites: SuiteSession) -> None:
    """ms_per_token given in seconds is told it is in seconds whatever the model and accelerator."""
    from grader.params import spread
    from grader.suites.namespace import NamespaceTarget

    for params in spread(decode_suites.lesson):
        (outcome,) = decode_suites.run(
            NamespaceTarget(_part1(dict(params), slip=1e-3)), frozenset({"ms_per_token"}), params
        )
        assert outcome.status == "failed" and "in seconds" in outcome.message, (params, outcome.message)
        assert f"{dict(params)['tb_per_s']:g} TB/s" in outcome.message  # the learner's own accelerator


def test_the_class_report_counts_one_misconception_across_everyones_numbers(decode_suites: SuiteSession) -> None:
    """The same slip on six learners' different models and accelerators is one row of the class report, with
    six learners, for each of Part 1's known mistakes that names the learner's own numbers."""
    from grader.batch.model import Row
    from grader.model import Report
    from grader.params import spread
    from grader.report.class_report import misconceptions
    from grader.score import score_question
    from grader.suites.namespace import NamespaceTarget

    lesson = decode_suites.lesson
    slips = {
        "two bytes": lambda n: {"gb_per_step": float(n["params_b"]) * 2},  # type: ignore[arg-type]
        "1 TB/s": lambda n: {"ms_per_token": float(n["params_b"]) * float(n["bytes_per_param"])},  # type: ignore[arg-type]
    }
    for name, answer in slips.items():
        rows = []
        for k, params in enumerate(spread(lesson)):
            ((qid, value),) = answer(dict(params)).items()
            outcomes = decode_suites.run(NamespaceTarget({qid: value}), frozenset({qid}), params)
            result = score_question(lesson.question(qid), list(outcomes))
            rows.append(Row.of(f"learner{k}", Report("decode", "x.ipynb", 0, 1, (result,))))
        found = misconceptions(rows)
        assert len(found) == 1 and len(found[0].learners) == len(rows), (name, [m.text for m in found])
