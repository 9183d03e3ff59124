"""Real nbgrader on the nbgrader notebook ``grade build`` makes: ``generate_assignment`` then ``autograde`` give
the per-question scores ``grade`` gives, also when an answer calls a function defined in a later cell (the
test cells all come after the last answer cell, so every answer has run first, as in ``grade``)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from tests.conftest import run_grade
from tests.integration_support import SOLUTION
from tests.test_nbgrader import ASSIGNMENT, CONFIG, NBGRADER_SOURCE, cell_scores, nbgrader, submission_from

#: tokens_per_second written through decode_time, which the notebook defines two cells further down.
FORWARD = '''def tokens_per_second(param_bytes, bandwidth):
    """The best decode rate of a single sequence, in tokens per second."""
    return 1 / decode_time(1, param_bytes, bandwidth)'''


@pytest.mark.slow
def test_nbgrader_and_grade_agree_on_an_answer_that_calls_a_later_function(tmp_path: Path) -> None:
    root = tmp_path / "course"
    url = f"sqlite:///{root / 'gradebook.db'}"
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root), db=url))
    (root / "source" / ASSIGNMENT / "decode.ipynb").write_bytes(NBGRADER_SOURCE.read_bytes())
    nbgrader("generate_assignment", ASSIGNMENT, cwd=root)

    answers = nbformat.read(SOLUTION, as_version=4)
    cells = {c.id: c for c in answers.cells}
    cells["tokens_per_second"].source = FORWARD
    ids = [c.id for c in answers.cells]
    assert ids.index("tokens_per_second") < ids.index("decode_time")  # a forward reference indeed
    cells["ms_per_token"].source = "# YOUR CODE HERE\nraise NotImplementedError()"  # one answer left as released
    submitted = submission_from(
        root / "release" / ASSIGNMENT / "decode.ipynb",
        answers,
        root / "submitted" / "ada" / ASSIGNMENT / "decode.ipynb",
    )
    nbgrader("autograde", ASSIGNMENT, cwd=root)

    graded = run_grade(str(submitted), "--json")
    assert graded.returncode == 0, graded.stderr
    expected = {q["id"]: q["score"] for q in json.loads(graded.stdout)["questions"]}
    assert expected["tokens_per_second"] == 2 and expected["ms_per_token"] == 0  # the case that used to disagree
    assert cell_scores(url, "ada") == pytest.approx(expected, abs=1e-9)
