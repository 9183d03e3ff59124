"""``grade build``: every artefact of a lesson comes from its one source, the committed ones are fresh, and the
learner's notebook holds nothing but the lesson and one self-check per question."""

from __future__ import annotations

import ast
import json
import math
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.authoring.build import (
    CHAPTER_ID_PREFIX,
    CHAPTER_REFERENCE,
    LessonSourceError,
    artefact_texts,
    build_notebooks,
    nbgrader_path,
    read_source,
    source_path,
)
from grader.config import SKIP_TAG
from grader.lessons import load_lesson
from tests.conftest import REPO, run_grade

LESSON = load_lesson("decode")
QUESTIONS = [q.id for q in LESSON.questions]


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


# -- freshness -----------------------------------------------------------------------------------------------------


def test_a_hand_edit_of_a_built_notebook_is_caught(tmp_path: Path) -> None:
    """What the freshness gate compares (tests/test_lesson_gates.py, for every lesson): a one-character change in
    any cell makes the texts differ."""
    nb = _read(LESSON.notebook)
    nb.cells[0].source += "!"
    assert nbformat.writes(nb) + "\n" != artefact_texts(LESSON)[LESSON.notebook]


@pytest.mark.slow
def test_grade_build_in_a_fresh_folder_writes_the_committed_files_and_the_gradescope_zip(tmp_path: Path) -> None:
    for part in ("exercises/decode", "notebooks", "solutions"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "exercises" / CHAPTER_REFERENCE, tmp_path / "exercises")  # the section decode includes
    for built in (
        tmp_path / "notebooks" / "decode.ipynb",
        tmp_path / "solutions" / "decode.ipynb",
        tmp_path / "exercises/decode/nbgrader/decode.ipynb",
    ):
        built.unlink()
    result = run_grade(
        "build", str(tmp_path / "exercises" / "decode"), "--bundle-dir", str(tmp_path / "out"), cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    for rel in ("notebooks/decode.ipynb", "solutions/decode.ipynb", "exercises/decode/nbgrader/decode.ipynb"):
        assert (tmp_path / rel).read_bytes() == (REPO / rel).read_bytes(), rel
    with zipfile.ZipFile(tmp_path / "out" / "decode-gradescope-autograder.zip") as zf:
        names = set(zf.namelist())
    assert {"setup.sh", "run_autograder", "exercises/decode/lesson.toml", "solutions/decode.ipynb"} <= names


@pytest.mark.slow  # two cold grades and a build
def test_a_course_folder_of_lessons_only_names_the_missing_solution_and_grades_once_it_is_built(tmp_path: Path) -> None:
    shutil.copytree(REPO / "exercises", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "examples" / "submissions" / "ada.ipynb", tmp_path)
    missing = run_grade("ada.ipynb", "--lesson", "decode", cwd=tmp_path)
    assert missing.returncode == 1, missing.stderr
    named = (str(tmp_path / "solutions" / "decode.ipynb"), f"grade build {tmp_path / 'exercises' / 'decode'}")
    assert all(part in missing.stderr for part in named), missing.stderr
    built = run_grade("build", "exercises/decode", "--bundle-dir", str(tmp_path / "out"), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    graded = run_grade("ada.ipynb", "--lesson", "decode", "--json", cwd=tmp_path)
    assert graded.returncode == 0, graded.stderr
    report = json.loads(graded.stdout)
    assert report["score"] == report["max_score"] > 0, report["errors"]


def test_a_source_without_an_answer_cell_for_a_question_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "decode"
    shutil.copytree(LESSON.root, folder)
    text = source_path(LESSON).read_text(encoding="utf-8").replace('# %% question="generate"', "# %%")
    (folder / "decode.py").write_text(text, encoding="utf-8")
    with pytest.raises(LessonSourceError, match=r"missing \['generate'\]|has solution or stub markers but no question"):
        read_source(load_lesson("decode", tmp_path))


def test_an_answer_cell_without_a_solution_region_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "decode"
    shutil.copytree(LESSON.root, folder)
    text = source_path(LESSON).read_text(encoding="utf-8")
    start = text.index('# %% question="request_time"')
    cell = text[start : text.index("# %%", start + 5)]
    (folder / "decode.py").write_text(
        text.replace(cell, cell.replace("### BEGIN SOLUTION\n", "").replace("### END SOLUTION\n", "")), encoding="utf-8"
    )
    with pytest.raises(LessonSourceError, match="request_time.*needs one ### BEGIN SOLUTION"):
        read_source(load_lesson("decode", tmp_path))


# -- what each notebook holds ------------------------------------------------------------------------------------


def test_the_learner_notebook_is_only_for_learners() -> None:
    nb = _read(LESSON.notebook)
    assert nb.metadata["grader"] == {"lesson": "decode"}
    text = nbformat.writes(nb)
    for internal in ("nbgrader", "grader.integrations", "BEGIN SOLUTION", "### STUB"):
        assert internal not in text, internal
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    checks = [c for c in code if c.source.startswith("check(")]
    assert [c.source for c in checks] == [f'check("{q}")' for q in QUESTIONS]
    assert all(c.metadata.get("tags") == [SKIP_TAG] for c in checks)
    ids = [c.id for c in nb.cells]
    for q in QUESTIONS:  # each check right after its answer cell: one result per question, where it is answered
        assert ids[ids.index(q) + 1] == f"check_{q}"


def test_learner_and_solution_differ_only_in_the_answer_cells() -> None:
    learner, solution = _read(LESSON.notebook), _read(LESSON.solution)
    assert [c.id for c in learner.cells] == [c.id for c in solution.cells]
    differ = {a.id for a, b in zip(learner.cells, solution.cells, strict=False) if a.source != b.source}
    assert differ == set(QUESTIONS)


def test_stubs_are_the_authors_or_a_not_implemented_error_at_the_regions_indentation() -> None:
    built = build_notebooks(read_source(LESSON))
    cells = {c.id: c.source for c in built.learner.cells}
    assert cells["gb_per_step"] == "gb_per_step = None  # your answer, in GB"
    assert cells["generate"].endswith(
        '\n    raise NotImplementedError("Write generate here: replace this line with your code, then run the cell.")'
    )
    solutions = {c.id: c.source for c in built.solution.cells}
    assert "STUB" not in solutions["gb_per_step"] and "gb_per_step = 13e9 * 1 / 1e9" in solutions["gb_per_step"]
    assert "{" not in solutions["gb_per_step"]  # the page's numbers filled in


def test_the_nbgrader_notebook_has_solution_regions_and_every_test_after_every_answer() -> None:
    nb = _read(nbgrader_path(LESSON))
    meta = [c.metadata["nbgrader"] for c in nb.cells]
    assert all(m["schema_version"] == 3 and m["grade_id"] == c.id for m, c in zip(meta, nb.cells, strict=False))
    answers = [i for i, m in enumerate(meta) if m["solution"]]
    tests = [i for i, m in enumerate(meta) if m["grade"]]
    assert [nb.cells[i].id for i in answers] == QUESTIONS and len(tests) == len(QUESTIONS)
    assert max(answers) < min(tests)
    assert all("### BEGIN SOLUTION" in nb.cells[i].source for i in answers)
    assert sum(m["points"] for m in meta if m["grade"]) == LESSON.max_score


# -- every number in the text is the lesson's own ----------------------------------------------------------------


def _reference() -> Any:
    from grader.suites.reference import load_reference

    return load_reference(LESSON.solution)


def _text() -> str:
    """The learner notebook's text cells, with line breaks as spaces (a claim may wrap)."""
    return " ".join(" ".join(c.source.split()) for c in _read(LESSON.notebook).cells if c.cell_type == "markdown")


def _claims(r: Any) -> list[tuple[str, str, float, float]]:
    """(a passage of the text, the number it shows, that number computed by the reference, tolerance).

    The tolerance is half a unit of the last digit shown unless given: "≈ 239" must be 239.28 rounded.
    """
    tps = r.tokens_per_second(14e9, 1e12)
    return [
        ("7e9 parameters x 2 bytes = 14e9 bytes = **14 GB** read per step", "14", 7e9 * 2 / 1e9, 0),
        # Part 1's own model, stated in its text; the answers follow from these two (and are never on the page).
        ("**13e9 parameters stored in FP8, 1 byte per parameter**", "13e9", r.gb_per_step * 1e9 / 1, 1e-9),
        ("H100 SXM with **3.35 TB/s**", "3.35", r.gb_per_step / r.ms_per_token, 0),
        ("(3.35e12 bytes/s, from NVIDIA's H100 datasheet)", "3.35e12", r.gb_per_step * 1e12 / r.ms_per_token, 1e-9),
        ("14e9 / 1e12 = 0.014 s = **14 ms** per token", "14", r.decode_step_seconds(14e9, 1e12) * 1e3, 0),
        ("1000 / 14 = 71.428... ≈ **71.4 tokens/s**", "71.4", tps, 0),
        ("2 x 7e9 x 71.4 ≈ 1e12 FLOP/s", "1e12", 2 * 7e9 * tps, 0.01),
        ("3.35e12 / 14e9 ≈ 239 tokens/s", "239", r.tokens_per_second(14e9, 3.35e12), 0),
        ("70B parameters at 2 bytes is 140 GB", "140", 70e9 * 2 / 1e9, 0),
        ("2 / 2 = **1 FLOP per byte**", "1", (2 * 7e9) / (7e9 * 2), 0),
        ("989e12 / 3.35e12 ≈ **295 FLOPs per byte**", "295", r.ridge_point(989e12, 3.35e12), 0),
        ("sits nearly 300 times below that ridge point", "300", r.ridge_point(989e12, 3.35e12) / 1.0, 0.02),
        (
            "40 s / 4,000 = 10 ms per token, the time to read 70 GB at about 7 TB/s",
            "10",
            r.decode_step_seconds(70e9, 7e12) * 1e3,
            0,
        ),
        ("0.20 + 4 x 0.05 = **0.40 s** in all", "0.40", r.request_time(0.20, 0.05, 5), 0),
        ("The steady rate is 1 / ITL = **20 tokens/s**", "20", 1 / 0.05, 0),
        ("the user sees 5 / 0.40 = **12.5 tokens/s**", "12.5", 5 / r.request_time(0.20, 0.05, 5), 0),
        ("dashboard X reports **20 tokens/s**", "20", 1 / 0.05, 0),
        ("dashboard Y reports **12.5 tokens/s**", "12.5", 5 / r.request_time(0.20, 0.05, 5), 0),
        ("8 x 71.43 ≈ **571.4 tokens/s**", "571.4", r.batch_throughput(14e9, 1e12, 8)[0], 0),
        ("while each stream still gets **71.4 tokens/s**", "71.4", r.batch_throughput(14e9, 1e12, 8)[1], 0),
        ("14.5e9 / 1e12 = **14.5 ms** per step", "14.5", r.kv_step_seconds(14e9, 5e5, 1000, 1e12) * 1e3, 0),
        ("(14e9 + 16e9) / 1e12 = **30 ms** per step", "30", r.kv_step_seconds(14e9, 5e5, 32000, 1e12) * 1e3, 0),
        ("The cache (16 GB) now outweighs the weights", "16", 5e5 * 32000 / 1e9, 0),
        (
            "14.5 + 14.5005 + 14.501 = **43.5015 ms** in all",
            "43.5015",
            r.kv_decode_time(3, 1000, 14e9, 5e5, 1e12) * 1e3,
            0,
        ),
        ("(1 - 0.8^5) / (1 - 0.8) = **3.3616** tokens per pass", "3.3616", r.expected_tokens_per_pass(4, 0.8), 0),
        ("at a = 0 a pass still gives 1 token", "1", r.expected_tokens_per_pass(4, 0.0), 0),
    ]


def _half_unit(shown: str) -> float:
    return 0.5 * 10.0 ** -len(shown.split(".")[1]) if "." in shown else 0.5


def test_every_number_the_text_claims_is_what_the_lessons_functions_compute() -> None:
    text = _text()
    for passage, shown, computed, rel in _claims(_reference()):
        assert passage in text, f"the text no longer says {passage!r}: update the claim with the text"
        assert shown in passage
        tolerance = rel * abs(computed) if rel else _half_unit(shown)
        assert abs(float(shown) - computed) <= tolerance, f"{passage!r}: the lesson's functions give {computed!r}"


def test_every_bold_number_in_the_text_has_a_claim() -> None:
    claimed = " ".join(passage for passage, *_ in _claims(_reference()))
    bold = re.findall(r"\*\*(?!\d+\.\*\*)[0-9][^*]*\*\*", _text())  # not the questions' numbers, **1.**
    assert bold and [b for b in bold if b not in claimed] == []


def test_the_texts_other_sums_add_up() -> None:
    r = _reference()
    assert [round(r.kv_step_seconds(14e9, 5e5, c, 1e12) * 1e3, 4) for c in (1000, 1001, 1002)] == [
        14.5,
        14.5005,
        14.501,
    ]
    assert r.kv_step_seconds(14e9, 5e5, 32000, 1e12) > 2 * r.kv_step_seconds(14e9, 5e5, 1000, 1e12)  # "more than twice"
    assert r.intensity_4bit == 2 / 0.5


def _matches(shown: str, value: Any) -> bool:
    """Whether a docstring's result (``0.014``, ``71.428...``, ``(571.428..., 71.428...)``, ``True (...)``) is
    ``value``."""
    numbers = re.findall(r"-?\d+\.\d+\.\.\.|-?\d+(?:\.\d+)?(?:e-?\d+)?", shown)
    if "..." in shown:
        values = list(value) if isinstance(value, (list, tuple)) else [value]
        truncated = [
            (float(n.rstrip(".")), len(n.rstrip(".").split(".")[1]) if "." in n.rstrip(".") else 0) for n in numbers
        ]
        return len(values) == len(truncated) and all(
            x <= v < x + 10.0**-d for v, (x, d) in zip(values, truncated, strict=False)
        )
    literal = ast.literal_eval(shown.split(" (")[0])
    if isinstance(literal, float):
        return bool(math.isclose(value, literal, rel_tol=1e-9))
    return bool(literal == value)


def test_every_docstring_example_is_what_the_solution_returns() -> None:
    r = _reference()
    examples = []
    for cell in _read(LESSON.solution).cells:
        for name, args, shown in re.findall(r"Example: (\w+)\((.*)\) -> (.+)", cell.source):
            examples.append(name)
            value = eval(f"r.{name}({args})", {"r": r})  # the docstring's own call, on the reference
            assert _matches(shown.strip(), value), f"{name}({args}) gives {value!r}, the docstring says {shown}"
    function_questions = [q.id for q in LESSON.questions if q.kind == "function"]
    assert sorted(examples) == sorted(function_questions)


# -- the learner's self-check cells -----------------------------------------------------------------------------


def _self_check_cell(marker: str) -> str:
    (source,) = [
        c.source for c in _read(LESSON.notebook).cells if SKIP_TAG in c.metadata.get("tags", []) and marker in c.source
    ]
    return source


def _plot_message(
    tokens_per_second: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    decode_step_seconds: Any = lambda p, b: p / b,
) -> str:
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"tokens_per_second": tokens_per_second, "decode_step_seconds": decode_step_seconds}
    exec(_self_check_cell("_plot_decode_speeds()"), namespace)
    return capsys.readouterr().out


def test_the_plot_names_decode_step_seconds_when_that_is_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A right tokens_per_second over a decode_step_seconds in milliseconds: the evidence points at the step."""
    pytest.importorskip("matplotlib")

    def step(p: float, b: float) -> float:
        return p / b * 1000

    said = _plot_message(lambda p, b: 1 / step(p, b), monkeypatch, capsys, step)
    assert 'check("decode_step_seconds")' in said and 'check("tokens_per_second")' not in said, said
    right = _plot_message(lambda p, b: p / b, monkeypatch, capsys)
    assert 'check("tokens_per_second")' in right, right


def test_the_plot_draws_for_a_right_tokens_per_second(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    assert _plot_message(lambda p, b: b / p, monkeypatch, capsys) == ""


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (lambda p, b: (_ for _ in ()).throw(NotImplementedError()), "Fill in tokens_per_second in Part 2"),
        (lambda p, b: p / b, "which no real accelerator gives"),  # seconds per token: far below 0.1 tokens/s
        (lambda p, b: 1000 * p / b, "is as fast as or faster than"),  # ms per token: plausible sizes, wrong trend
        (lambda p, b: b / p * 1e6, "which no real accelerator gives"),
        (lambda p, b: b, "which no real accelerator gives"),
        (lambda p, b: (b / 1e10) * (p / 1e10), "as fast as or faster than"),  # plausible sizes, faster when bigger
        (lambda p, b: 1e12 / p, "no faster on the AMD MI300X"),
        (lambda p, b: None, "a speed is a positive number"),
        (lambda p, b: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_the_plot_says_kindly_why_a_wrong_tokens_per_second_draws_no_plot(
    wrong: Any, says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    message = _plot_message(wrong, monkeypatch, capsys)
    assert says in message and message.count("\n") == 1, message


def test_the_step_through_prints_a_table_where_widgets_cannot_show() -> None:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_self_check_cell("_step_through()"), {})  # no Jupyter kernel here: the printed table
    rows = out.getvalue().splitlines()
    assert rows[0] == "7B parameters x 2 bytes at 1 TB/s (no sliders here):" and len(rows) == 2 + 5
    assert rows[2].split() == ["1", "14", "GB", "0", "14", "14", "71.4"]
    assert rows[-1].split() == ["5", "14", "GB", "4", "14", "70", "71.4"]


@pytest.mark.slow
def test_in_a_kernel_each_check_prints_one_result_and_nothing_lands_in_the_learners_folder(tmp_path: Path) -> None:
    from nbclient import NotebookClient

    folder = tmp_path / "learner"
    folder.mkdir()
    nb = _read(LESSON.notebook)
    NotebookClient(nb, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kinds = [(o.output_type, o.get("name")) for o in cell.outputs]
        assert ("stream", "stderr") not in kinds and "execute_result" not in [k for k, _ in kinds], (
            cell.id,
            cell.outputs,
        )
        assert "error" not in [k for k, _ in kinds], (cell.id, cell.outputs)
        if cell.source.startswith("check("):  # a print may arrive in pieces; Jupyter shows them as one text
            text = "".join(o.text for o in cell.outputs)
            assert set(kinds) == {("stream", "stdout")} and "not attempted yet" in text, cell.id
            assert text.count("\n") == 1, text  # one line: one result
    (steps,) = [c for c in nb.cells if "_step_through()" in c.source]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in steps.outputs)
    assert list(folder.iterdir()) == []  # no .hypothesis/, no cache: the learner's folder is as it was


@pytest.mark.slow
def test_grade_leaves_nothing_in_the_current_folder_and_caches_in_the_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, cache = tmp_path / "here", tmp_path / "cache"
    here.mkdir()
    monkeypatch.setenv("GRADER_DAEMON", "off")
    monkeypatch.setenv("GRADER_CACHE_DIR", str(cache))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    result = run_grade(str(LESSON.solution), "--json", cwd=here)
    assert result.returncode == 0, result.stderr
    assert list(here.iterdir()) == []
    # What a run keeps (the examples the suites replay) is in the cache folder. Hypothesis's own folder is set
    # there too (session.py), but a run that replays kept examples may write nothing of hypothesis's at all.
    assert list((cache / "examples").glob("*.json"))


def _by_hand_answers(r: Any) -> dict[str, list[str]]:
    """Each by-hand answer of the solution, in the forms a learner could copy from the page."""
    gb, ms, tps = float(r.gb_per_step), float(r.ms_per_token), float(r.max_tokens_per_s)
    return {
        "gb_per_step": [f"{gb:g} GB", f"{gb:.1f} GB", f"{gb:g}e9 bytes", f"{gb * 1e9:.0f} bytes"],
        "ms_per_token": [f"{ms:.2f}", f"{ms:.3f}", f"{ms:.4f}", f"{ms / 1e3:.4f} s", f"{ms / 1e3:.5f}"],
        "max_tokens_per_s": [f"{tps:.1f}", f"{tps:.2f}", f"{tps:.0f} tokens"],
    }


def _answers_on_page(nb: Any, r: Any) -> dict[str, list[str]]:
    parts = [c.source for c in nb.cells]
    parts += [json.dumps(c.get("outputs", [])) for c in nb.cells if c.cell_type == "code"]
    page = " ".join(" ".join(p.split()) for p in parts)
    answers = _by_hand_answers(r)
    return {
        q: [a for a in forms if re.search(rf"(?<![\d.]){re.escape(a)}(?![\d])", page)] for q, forms in answers.items()
    }


def test_no_by_hand_answer_appears_in_the_learner_notebook() -> None:
    """Part 1's points measure working the three steps out: none of its answers may be on the page (text, code,
    outputs). The worked example's (14 GB, 14 ms, 71.4) are there on purpose, for another model."""
    found = _answers_on_page(_read(LESSON.notebook), _reference())
    assert found == {q: [] for q in QUESTIONS if q in found} and len(found) == 3
    assert {float(_reference().gb_per_step), round(float(_reference().max_tokens_per_s), 1)}.isdisjoint({14.0, 71.4})


def test_every_learners_notebook_states_their_numbers_and_none_of_their_answers() -> None:
    """Released on each set of numbers the lesson can give: the text states that learner's model and accelerator,
    the solution built on them answers for them, and none of those answers is on the learner's page."""
    from types import SimpleNamespace

    from grader.authoring.build import Owner
    from grader.params import every_params

    src = read_source(LESSON)
    sets = every_params(LESSON)
    assert len(sets) == 48
    for params in sets:
        built = build_notebooks(src, Owner("ada", params))
        numbers = dict(params)
        namespace: dict[str, Any] = {}
        for cell in built.solution.cells:
            if cell.get("id") in ("gb_per_step", "ms_per_token", "max_tokens_per_s"):
                exec(cell.source, namespace)
        r = SimpleNamespace(**namespace)
        assert math.isclose(r.gb_per_step, numbers["params_b"] * numbers["bytes_per_param"]), params
        assert math.isclose(r.ms_per_token * r.max_tokens_per_s, 1000), params
        text = " ".join(" ".join(c.source.split()) for c in built.learner.cells if c.cell_type == "markdown")
        assert f"**{numbers['params_b']}e9 parameters stored in {numbers['precision']}," in text, params
        assert f"{numbers['gpu']} with **{numbers['tb_per_s']:g} TB/s**" in text, params
        assert _answers_on_page(built.learner, r) == {
            q: [] for q in ("gb_per_step", "ms_per_token", "max_tokens_per_s")
        }
        assert built.learner.metadata["grader"]["params"] == numbers


def _options(text: str) -> list[list[tuple[str, str]]]:
    """Each multiple-choice list of the text: (letter, option text) in order."""
    lists = re.findall(r"((?:- \*\*[A-D]\.\*\* .*?)+)(?= Set `)", text)
    return [re.findall(r"- \*\*([A-D])\.\*\* (.*?)(?= - \*\*[A-D]\.\*\*|$)", block.strip()) for block in lists]


def test_the_right_option_is_not_systematically_the_longest() -> None:
    """A test-wise learner picks the longest, most qualified option: the distractors must be as specific."""
    r = _reference()
    right = [r.answer_sequential, r.answer_prefill_vs_decode, r.answer_batching_bug, r.answer_rate_definitions]
    lists = _options(_text())
    assert len(lists) == len(right) and all(len(options) >= 2 for options in lists), lists
    longest = [max(options, key=lambda o: len(o[1]))[0] for options in lists]
    strictly = [
        letter == answer and sorted(len(t) for _, t in options)[-1] > sorted(len(t) for _, t in options)[-2]
        for letter, answer, options in zip(longest, right, lists, strict=True)
    ]
    assert sum(strictly) <= len(right) // 2, list(zip(longest, right, strict=True))
    for options, answer in zip(lists, right, strict=True):  # and no distractor is a stub beside the answer
        lengths = {letter: len(text) for letter, text in options}
        assert min(lengths.values()) >= 0.6 * lengths[answer], (answer, lengths)


# -- the chapter's reference section: authored once, included by every lesson ----------------------------------------


def _chapter_cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, str]]:
    return [(c.id, c.cell_type, c.source) for c in nb.cells if c.id.startswith(CHAPTER_ID_PREFIX)]


def _chapter_lessons() -> list[str]:
    from grader.lessons import load_outline

    outline = load_outline()
    assert outline is not None
    return [entry.id for entry in outline.lessons]


def test_the_chapter_section_is_the_same_in_every_lesson_and_every_built_notebook() -> None:
    """Every lesson of the chapter outline marks the place; its learner, solution and nbgrader notebooks then hold
    the chapter file's cells, in one block, in its order, with the same ids: the section is the same everywhere."""
    import jupytext

    authored = [(c.cell_type, c.source) for c in jupytext.read(REPO / "exercises" / CHAPTER_REFERENCE).cells]
    sections = {}
    for lesson_id in _chapter_lessons():
        lesson = load_lesson(lesson_id)
        assert 'include="chapter"' in source_path(lesson).read_text(encoding="utf-8"), lesson_id
        built = {"learner": lesson.notebook, "solution": lesson.solution, "nbgrader": nbgrader_path(lesson)}
        for which, path in built.items():
            nb = _read(path)
            cells = _chapter_cells(nb)
            ids = [c.id for c in nb.cells]
            at = ids.index(cells[0][0])
            assert ids[at : at + len(cells)] == [c[0] for c in cells], (lesson_id, which)  # one block
            sections[lesson_id, which] = cells
    first = next(iter(sections.values()))
    assert [(kind, source) for _, kind, source in first] == authored
    assert all(cells == first for cells in sections.values()), sorted(sections)


def _without_the_marker(tmp_path: Path) -> Path:
    folder = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises" / "request", folder / "request", ignore=shutil.ignore_patterns("__pycache__"))
    source = folder / "request" / "request.py"
    source.write_text(source.read_text(encoding="utf-8").replace('# %% include="chapter"\n\n', ""), encoding="utf-8")
    return folder


def test_a_lesson_without_the_marker_builds_as_before_and_needs_no_chapter_file(tmp_path: Path) -> None:
    """No marker, no chapter cells, and every other cell as the built notebook has it; no chapter file needed."""
    built = build_notebooks(read_source(load_lesson("request", _without_the_marker(tmp_path))))
    committed = _read(load_lesson("request").notebook)
    assert _chapter_cells(built.learner) == []
    assert [(c.id, c.source) for c in built.learner.cells] == [
        (c.id, c.source) for c in committed.cells if not c.id.startswith(CHAPTER_ID_PREFIX)
    ]


def test_a_missing_chapter_file_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "exercises"
    shutil.copytree(REPO / "exercises" / "request", folder / "request", ignore=shutil.ignore_patterns("__pycache__"))
    with pytest.raises(LessonSourceError, match=rf"request.py, cell \d+ includes the chapter's reference section, but "
                       rf"there is no {re.escape(str(folder / CHAPTER_REFERENCE))}: write it there"):  # fmt: skip
        read_source(load_lesson("request", folder))


@pytest.mark.parametrize(
    ("marker", "chapter", "says"),
    [
        ('# %% include="chapters"\n', "", r"an include cell is the line # %% include=\"chapter\" and nothing else"),
        ('# %% include="chapter"\nx = 1\n', "", "and some text"),
        ('# %% include="chapter"\n', '# %% question="latency_s"\nlatency_s = 1\n', "can hold neither a question"),
        ('# %% include="chapter"\n', '# %% include="chapter"\n', "can hold neither a question nor an include"),
    ],
)
def test_a_wrong_include_or_chapter_file_is_refused_with_what_to_do(
    tmp_path: Path, marker: str, chapter: str, says: str
) -> None:
    folder = _without_the_marker(tmp_path)
    (folder / CHAPTER_REFERENCE).write_text("# %% [markdown]\n# ## Chapter\n\n" + chapter, encoding="utf-8")
    source = folder / "request" / "request.py"
    text = source.read_text(encoding="utf-8")
    end = "# %% [markdown]\n# ## All together"
    source.write_text(text.replace(end, marker + "\n" + end), encoding="utf-8")
    with pytest.raises(LessonSourceError, match=says):
        read_source(load_lesson("request", folder))


def _chapter_text() -> str:
    nb = _read(LESSON.notebook)
    return " ".join(" ".join(c.source.split()) for c in nb.cells if c.id.startswith(CHAPTER_ID_PREFIX))


def _chapter_table() -> dict[str, str]:
    """What the section's reference code prints: each quantity's value, as a learner who runs it sees it."""
    import contextlib
    import io

    (code,) = [c.source for c in _read(LESSON.notebook).cells if c.id.startswith(CHAPTER_ID_PREFIX + "co_")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    return {line[:32].strip(): line.split("  ")[-1].strip() for line in out.getvalue().splitlines()}


def test_the_chapter_sections_numbers_are_its_reference_codes_and_the_lessons_functions() -> None:
    """Each number of the worked example is what the section's own code prints and what the lessons' graded
    functions compute (request, prefill and decode's solutions), so the chapter and its lessons agree."""
    from grader.suites.reference import load_reference

    request, prefill = (load_reference(load_lesson(name).solution) for name in ("request", "prefill"))
    decode = _reference()
    text, table = _chapter_text(), _chapter_table()
    kv = prefill.kv_bytes_written(1, 80, 8, 128, 2)
    claims = [  # (passage, the number it shows, the table's row that prints it, the lessons' functions' value)
        ("70e9 x 1 byte = 70 GB", "70", "weights", decode.decode_step_seconds(70e9, 1e9)),
        ("leaving 212 GB of the 282 GB", "212", "memory left for the KV cache", 2 * 141 - 70),
        ("1.979e15 / 4.8e12 ≈ 412 FLOPs per byte", "412", "ridge point", prefill.ridge_point(1.979e15, 4.8e12)),
        ("2 x 70e9 x 4,000 = 5.6e14 FLOPs", "5.6e14", "prefill FLOPs", prefill.prefill_flops(70e9, 4000)),
        ("2 x 4,000 / 1 = 8,000 FLOPs per byte", "8000", "prefill intensity", prefill.prefill_intensity(4000, 1)),
        (
            "5.6e14 / 3.958e15 ≈ 0.141 s",
            "0.141",
            "TTFT at the full peak",
            prefill.ttft_seconds(70e9, 4000, 3.958e15, 1),
        ),
        ("TTFT ≈ 0.51 s", "0.51", "TTFT at the utilisation", prefill.ttft_seconds(70e9, 4000, 3.958e15, 0.28)),
        ("70e9 / 9.6e12 ≈ 7.3 ms", "7.3", "decode step, at least", decode.decode_step_seconds(70e9, 9.6e12) * 1e3),
        ("about 10 ms per token", "10", "decode step, achieved", decode.decode_step_seconds(70e9, 0.73 * 9.6e12) * 1e3),
        (
            "about 100 tokens/s for one stream",
            "100",
            "one stream's steady rate",
            decode.tokens_per_second(70e9, 7.008e12),
        ),
        ("412 x 1 / 2 ≈ 206 sequences", "206", "compute-bound decode batch", prefill.ridge_point(1.979e15, 4.8e12) / 2),
        ("2 x 80 x 8 x 128 x 2 = 327,680 bytes per token", "327680", "KV cache per token", kv),
        ("4,000 positions hold about 1.31 GB", "1.31", "KV cache of the prompt", kv * 4000 / 1e9),
        ("at least 7.4 ms", "7.4", "decode step at that context", decode.kv_step_seconds(70e9, kv, 4000, 9.6e12) * 1e3),
        (
            "T ≈ 0.5 + 499 x 0.010 = 5.49 s",
            "5.49",
            "request latency (0.5 s, 10 ms)",
            request.request_latency(0.5, 0.01, 500),
        ),
        ("500 / 5.49 ≈ 91.1 tokens/s", "91.1", "request output rate", request.output_rate(500, 0.5, 0.01)),
    ]
    assert sorted(row for *_, row, _ in claims) == sorted(table)  # every printed row is claimed, and only those
    for passage, shown, row, computed in claims:
        assert passage in text, f"the chapter section no longer says {passage!r}: update the claim with the text"
        printed = float(table[row].split()[0].replace(",", "").replace("e+", "e"))
        tolerance = 1e-9 * abs(computed) if "e" in shown else _half_unit(shown)  # 5.6e14 is exact
        assert abs(float(shown) - computed) <= tolerance, (passage, computed)
        assert math.isclose(printed, float(shown), rel_tol=0.01), (row, table[row], shown)
