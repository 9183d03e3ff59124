"""The learner's side of the course service: tokens, the HTTP client, what ``check()`` sends from a kernel, the
released notebook's setup cell, ``submit()``, and ``grade NOTEBOOK`` / ``grade submit`` against a stand-in
service (tests/service_fake.py: the protocol, answered on loopback; the real server is tested on its own)."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.authoring.release import release
from grader.errors import UsageError
from grader.lessons import load_lesson
from grader.model import QuestionResult
from grader.params import SECRET_ENV
from grader.selfcheck import describe
from grader.service import protocol, tokens
from grader.service.client import Service, ServiceError, ServiceUnreachable
from grader.service.kernel import ran_cells, without_helpers
from tests.conftest import REPO
from tests.service_fake import SECRET, Fake, all_passed, closed_port_url, fake_service, not_http

TOKEN = tokens.issue(SECRET, "ada", "decode")


@pytest.fixture
def fake() -> Iterator[Fake]:
    with fake_service() as running:
        yield running


# -- tokens ------------------------------------------------------------------------------------------------------


def test_a_token_names_its_learner_and_lesson_and_only_the_secret_makes_one() -> None:
    learner, lesson, mac = TOKEN.split(protocol.SEPARATOR)
    assert (learner, lesson, len(mac)) == ("ada", "decode", protocol.MAC_HEX)
    assert tokens.verify(SECRET, TOKEN) == tokens.Identity("ada", "decode")
    assert tokens.verify(SECRET, protocol.token_text("ada", "prefill", mac)) is None  # good for its lesson only
    assert tokens.verify(b"another-secret-long-enough-1234", TOKEN) is None
    assert tokens.verify(SECRET, protocol.token_text("grace", "decode", mac)) is None  # another learner
    assert tokens.verify(SECRET, "ada~decode") is None
    assert tokens.verify(SECRET, TOKEN, learners={"grace"}) is None  # not on the service's roster
    with pytest.raises(ValueError):
        tokens.issue(SECRET, "a~b", "decode")


# -- the client ----------------------------------------------------------------------------------------------------


def test_check_sends_the_lesson_questions_and_cells_with_the_token(fake: Fake) -> None:
    answer = Service(fake.url, TOKEN).check("decode", ["q1"], ["x = 1"])
    assert answer["questions"][0]["id"] == "q1" and answer["learner"] == "ada"
    path, headers, body = fake.requests[-1]
    assert path == protocol.CHECK
    assert body == {"lesson": "decode", "questions": ["q1"], "cells": ["x = 1"]}
    assert headers["Authorization"] == f"Bearer {TOKEN}"


@pytest.mark.slow  # 5 s: a server that accepts and never answers is waited out
def test_each_failure_is_one_sentence_that_says_what_to_do(fake: Fake) -> None:
    forged = protocol.token_text("ada", "decode", "0" * protocol.MAC_HEX)
    with pytest.raises(ServiceError, match="token was not accepted.*ask your instructor for your own notebook"):
        Service(fake.url, forged).check("decode", [], [])
    with pytest.raises(ServiceUnreachable, match=r"did not answer: check your connection.*your work is safe"):
        Service(closed_port_url(), TOKEN).check("decode", [], [])
    with not_http() as url, pytest.raises(ServiceUnreachable, match="did not answer"):
        Service(url, TOKEN).check("decode", [], [])
    with pytest.raises(ServiceError, match="not an http:// or https:// address"):
        Service("file:///etc/passwd", TOKEN).check("decode", [], [])
    for status in (429, 503):
        fake.status = status
        with pytest.raises(ServiceError, match=r"try again in 7 s\.$"):
            Service(fake.url, TOKEN).check("decode", [], [])
    fake.status = None
    fake.answer = lambda _: {"questions": "all of them"}
    with pytest.raises(ServiceError, match="answered something this grader cannot read"):
        Service(fake.url, TOKEN).check("decode", [], [])


def test_cells_over_the_body_limit_are_not_sent(fake: Fake) -> None:
    with pytest.raises(ServiceError, match="Restart Kernel"):
        Service(fake.url, TOKEN).check("decode", [], ["x" * protocol.MAX_BODY_BYTES])
    assert fake.requests == []


def test_a_submit_whose_answer_was_lost_is_retried_once_with_the_same_key_and_stored_once(fake: Fake) -> None:
    fake.drop_next_submit = True
    receipt = Service(fake.url, TOKEN).submit("decode", {"cells": [], "metadata": {}})
    assert (receipt["learner"], receipt["attempt"], len(fake.stored)) == ("ada", 1, 1)
    keys = [headers[protocol.IDEMPOTENCY_HEADER] for _, headers, _ in fake.requests]
    assert len(keys) == 2 and keys[0] == keys[1]


# -- what a check sends from the kernel ----------------------------------------------------------------------------


def test_the_self_check_calls_are_left_out_of_the_cells_sent() -> None:
    setup = 'from grader.selfcheck import connect_service\ncheck, hint = connect_service(\n    "d",\n)'
    assert without_helpers(setup) == ""
    assert without_helpers('x = 1\ncheck("q")\nhint(\n    "q"\n)\ny = 2') == "x = 1\ny = 2"
    assert without_helpers("%time x = 1\ncheck('q')") == "%time x = 1\ncheck('q')"  # not Python: kept whole
    notebook = {"cells": [{"cell_type": "code", "source": "plot(f)", "metadata": {"tags": ["self-check"]}}]}
    namespace = {"In": ["", setup, "def f():\n    return 1", "plot(f)", 'check("q")']}
    assert ran_cells(namespace, notebook) == ["def f():\n    return 1"]


@pytest.fixture
def shell(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """A real IPython shell, as a kernel runs cells (its input history is what a check sends)."""
    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    instance = InteractiveShell.instance()
    yield instance
    InteractiveShell.clear_instance()


def _setup_cell(url: str, token: str = TOKEN) -> str:
    return (
        "from grader.selfcheck import connect_service\n"
        "check, check_all, hint, submit = connect_service(\n"
        f'    "decode", globals(), url={url!r}, token={token!r}, hints={{"q1": "Think.", "q2": ""}}\n)'
    )


def _run(shell: Any, capsys: pytest.CaptureFixture[str], source: str) -> str:
    capsys.readouterr()
    result = shell.run_cell(source, store_history=True)
    assert result.error_before_exec is None and result.error_in_exec is None, result
    return capsys.readouterr().out


def test_check_in_a_kernel_prints_the_services_verdict_as_self_check_does(
    shell: Any, fake: Fake, capsys: pytest.CaptureFixture[str]
) -> None:
    def answer(request: dict[str, Any]) -> dict[str, Any]:
        wrong = {"id": "q1", "score": 0, "max_score": 1, "status": "failed", "feedback": ["1 of 3 checks pass."]}
        return {**all_passed(request), "questions": [wrong], "errors": ["cell 4 raised NameError"]}

    fake.answer = answer
    _run(shell, capsys, _setup_cell(fake.url))
    _run(shell, capsys, "def f():\n    return 1")
    out = _run(shell, capsys, 'check("q1")')
    shown = describe(QuestionResult("q1", 0, 1, "failed", ("1 of 3 checks pass.",)), detail=True)
    assert out == f"{shown}\nNote: cell 4 raised NameError\n"
    assert fake.requests[-1][2] == {"lesson": "decode", "questions": ["q1"], "cells": ["def f():\n    return 1"]}
    fake.answer = all_passed
    out = _run(shell, capsys, "check_all()")
    assert out.splitlines() == [
        describe(QuestionResult(q, 1, 1, "passed", ("all checks pass",)), detail=False) for q in ("q1", "q2")
    ] + ["Total: 2 / 2"]
    assert "no question 'q9'" in _run(shell, capsys, 'check("q9")')


def test_without_the_service_hint_works_and_check_says_so_in_one_line(
    shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    _run(shell, capsys, _setup_cell(closed_port_url()))
    assert _run(shell, capsys, 'hint("q1")') == "Hint for q1: Think.\n"
    assert _run(shell, capsys, 'hint("q2")') == "Hint for q2: no hint for this one.\n"
    for call in ('check("q1")', "check_all()", "submit('nowhere.ipynb')"):
        out = _run(shell, capsys, call)
        assert len(out.splitlines()) == 1 and "Traceback" not in out, out
    assert "did not answer" in _run(shell, capsys, 'check("q1")')


def test_submit_hands_in_the_saved_notebook_and_warns_about_unsaved_cells(
    shell: Any, fake: Fake, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    setup = _setup_cell(fake.url)
    nb = nbformat.v4.new_notebook(metadata={"grader": {"lesson": "decode"}})
    nb.cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell("x = 1")]
    nbformat.write(nb, tmp_path / "decode.ipynb")
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "decode.ipynb"))
    _run(shell, capsys, setup)
    _run(shell, capsys, "x = 1")
    out = _run(shell, capsys, "submit()")
    assert out.startswith("Handed in: decode by ada, attempt 1, received 2026-12-03T14:00:00+00:00, on time."), out
    (stored,) = [body["notebook"] for path, _, body in fake.requests if path == protocol.SUBMIT]
    assert stored == json.loads((tmp_path / "decode.ipynb").read_text())
    _run(shell, capsys, "y = 2")  # run, never saved
    out = _run(shell, capsys, "submit()")
    assert out.startswith("Note: this kernel ran 1 cell(s) that differ from the saved decode.ipynb: save first")
    assert "attempt 2" in out


def test_an_answer_run_wrong_then_fixed_run_and_saved_is_not_called_unsaved(
    shell: Any, fake: Fake, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What a learner does in JupyterLab, which names each cell it runs: answer, check (wrong), fix the same cell,
    check, save, submit. The kernel ran the wrong version too, but the saved file holds what each cell last ran."""
    setup = _setup_cell(fake.url)
    nb = nbformat.v4.new_notebook(metadata={"grader": {"lesson": "decode"}})
    nb.cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell("x = 2")]
    answer = nb.cells[1].id
    nbformat.write(nb, tmp_path / "decode.ipynb")
    monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "decode.ipynb"))

    def run(source: str, cell_id: str) -> str:
        capsys.readouterr()
        assert shell.run_cell(source, store_history=True, cell_id=cell_id).success
        return capsys.readouterr().out

    run(setup, nb.cells[0].id)
    run("x = 1", answer)  # wrong, checked, then fixed in the same cell
    run('check("q1")', "a-check-cell")
    run("x = 2", answer)
    out = run("submit()", "the-submit-cell")
    assert out.startswith("Handed in: decode by ada, attempt 1,"), out
    run("x = 3", answer)  # edited and run again, never saved
    out = run("submit()", "the-submit-cell")
    assert out.startswith("Note: this kernel ran 1 cell(s) that differ from the saved decode.ipynb: save first"), out


# -- the release, and `grade` on a released notebook -----------------------------------------------------------------


@pytest.fixture
def released(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(SECRET_ENV, SECRET.decode())
    roster = tmp_path / "roster.csv"
    roster.write_text("learner\nada\n", encoding="utf-8")
    lesson = load_lesson("decode")
    (path,) = release(lesson, roster, tmp_path / "released", REPO / "exercises", service="http://127.0.0.1:9/")
    return path


def test_a_release_with_a_service_carries_the_address_the_token_and_the_hints(
    released: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = nbformat.read(released, as_version=4)
    meta = nb.metadata["grader"][protocol.METADATA_KEY]
    assert meta["url"] == "http://127.0.0.1:9"
    assert tokens.verify(SECRET, meta["token"]) == tokens.Identity("ada", "decode")
    (cell,) = [c for c in nb.cells if "connect_service(" in c.source]
    setup = cell.source
    assert 'connect("decode"' not in "".join(c.source for c in nb.cells)
    assert meta["token"] in setup and cell.metadata["tags"] == ["self-check"]
    namespace: dict[str, Any] = {}
    exec(setup, namespace)  # the engine alone: no lesson is read
    lesson = load_lesson("decode")
    namespace["hint"]("gb_per_step")
    assert capsys.readouterr().out.startswith("Hint for gb_per_step: Each step reads every weight once")
    assert list(namespace["hint"].__self__.hints) == [q.id for q in lesson.questions]
    assert nb.cells[-1].source == "submit()" and nb.cells[-1].metadata["tags"] == ["self-check"]


def test_a_release_with_a_service_refuses_nbgrader_and_what_is_not_an_address(tmp_path: Path) -> None:
    lesson = load_lesson("decode")
    with pytest.raises(UsageError, match="do not go together"):
        release(lesson, tmp_path / "r.csv", tmp_path, REPO / "exercises", nbgrader=True, service="http://x")
    with pytest.raises(UsageError, match="not an http:// or https:// address"):
        release(lesson, tmp_path / "r.csv", tmp_path, REPO / "exercises", service="grader.example.edu")


def _grade(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADER_DAEMON": "off"}
    return subprocess.run(["grade", *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def test_grade_and_grade_submit_send_a_released_notebook_to_its_service(released: Path, fake: Fake) -> None:
    here = released.parent
    result = _grade(released.name, "--service", fake.url, "--json", cwd=here)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["score"], report["max_score"], report["isolation"]) == (2, 2, "the course service")
    _, _, body = fake.requests[-1]
    nb = nbformat.read(released, as_version=4)
    graded = [c.source for c in nb.cells if c.cell_type == "code" and "self-check" not in c.metadata.get("tags", [])]
    assert body["questions"] == [] and body["cells"] == graded  # the cells a grade runs, not the self-check ones
    table = _grade(released.name, "--service", fake.url, cwd=here)
    assert "Total: 2 / 2" in table.stdout, table.stderr
    result = _grade("submit", released.name, "--service", fake.url, cwd=here)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Handed in: decode by ada, attempt 1,")
    (stored,) = fake.stored.values()
    assert stored["learner"] == "ada"


def test_grade_without_the_service_says_so_in_one_line(released: Path) -> None:
    for args in (["submit", released.name], [released.name, "--service"]):
        result = _grade(*args, cwd=released.parent)  # the notebook's own address: nothing listens on port 9
        assert result.returncode == 1, result.stdout
        assert len(result.stderr.splitlines()) == 1 and "did not answer" in result.stderr, result.stderr
    result = _grade(released.name, "--service", "--kernel", cwd=released.parent)
    assert result.returncode == 2 and "--kernel are its" in result.stderr, result.stderr
    plain = released.parent / "plain.ipynb"
    plain.write_text(nbformat.writes(nbformat.v4.new_notebook(metadata={"grader": {"lesson": "decode"}})))
    result = _grade("submit", plain.name, cwd=released.parent)
    assert result.returncode == 2 and "carries no course service token" in result.stderr, result.stderr


@pytest.mark.parametrize("lesson_id", sorted(p.parent.name for p in (REPO / "exercises").glob("*/lesson.toml")))
def test_every_lesson_releases_with_a_service_and_no_self_check_reads_a_lesson(lesson_id: str) -> None:
    from grader.authoring.build import Owner, build_notebooks, read_source
    from grader.params import default_params

    lesson = load_lesson(lesson_id)
    meta = protocol.ServiceMetadata(url="https://grader.example.edu", token=tokens.issue(SECRET, "ada", lesson_id))
    nb = build_notebooks(read_source(lesson), Owner("ada", default_params(lesson), meta)).learner
    (setup,) = [c for c in nb.cells if "connect_service(" in c.source]
    assert setup.metadata["jupyter"] == {"source_hidden": True}
    code = "\n".join(c.source for c in nb.cells)
    assert "connect(" not in code and "from grader.selfcheck import connect\n" not in code
    compile(setup.source, "setup", "exec")
    assert nb.metadata["grader"][protocol.METADATA_KEY] == meta


@pytest.mark.slow
def test_with_the_lessons_at_hand_grade_grades_a_released_notebook_here_as_before(released: Path, fake: Fake) -> None:
    """The course's own ``grade`` (lessons found) grades a notebook released with the service locally, its
    setup and submit cells skipped as every self-check cell is: the service's metadata changes nothing there."""
    result = _grade(released, "--json", cwd=REPO)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "graded" and report["isolation"] != "the course service", report
    assert [e for e in report["errors"] if not e.startswith("Graded on the numbers this notebook states")] == []
    assert fake.requests == []
