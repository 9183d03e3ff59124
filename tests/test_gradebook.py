"""The gradebook when its disk is full or it cannot be used: a learner's notebook that fills the disk its working
folder shares with the results is waited out, and anything else stops the batch with a sentence, never a traceback,
with what was graded before kept (hostile round of stop 48)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.batch import gradebook
from grader.batch.gradebook import FILE_NAME, Gradebook
from grader.batch.model import Row
from grader.errors import ResultsUnwritable
from tests.batch_support import LESSONS, SQUARES_SOLVED, batch, write_nb


def _row(learner: str) -> Row:
    # a reason long enough to need pages of its own: past the database's size, it cannot be written
    return Row(learner, f"{learner}.ipynb", "unreadable", "x" * 20_000, None)


def _full(book: Gradebook) -> None:
    """Hold the database to the pages it has, as a full disk holds it (SQLite answers SQLITE_FULL)."""
    pages = book._db.execute("PRAGMA page_count").fetchone()[0]
    book._db.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_is_waited_out_and_each_grading_written_once(tmp_path: Path, monkeypatch) -> None:
    book = Gradebook(tmp_path / FILE_NAME)
    run = book.start_run("here")
    book.record(run, _row("ada"), "d1", "h")
    _full(book)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:  # the learner's folder is deleted after the third pause
        pauses.append(seconds)
        if len(pauses) == 3:
            book._db.execute("PRAGMA max_page_count = 1073741823")

    monkeypatch.setattr(gradebook.time, "sleep", sleep)
    book.record(run, _row("bob"), "d2", "h")
    assert pauses == [0.25, 0.5, 1.0]
    assert [r.learner for r in book.latest(["ada", "bob"])] == ["ada", "bob"]
    assert book._db.execute("SELECT COUNT(*) FROM gradings WHERE learner = 'bob'").fetchone()[0] == 1
    book.close()


def test_a_disk_that_stays_full_stops_with_a_sentence_and_keeps_what_was_graded(tmp_path: Path, monkeypatch) -> None:
    book = Gradebook(tmp_path / FILE_NAME)
    run = book.start_run("here")
    book.record(run, _row("ada"), "d1", "h")
    _full(book)
    monkeypatch.setattr(gradebook, "DISK_FULL_WAIT_SECONDS", 3.0)
    monkeypatch.setattr(gradebook.time, "sleep", lambda seconds: None)
    with pytest.raises(ResultsUnwritable) as raised:
        book.record(run, _row("bob"), "d2", "h")
    assert "disk stayed full" in str(raised.value) and "run the same command again" in str(raised.value)
    book.close()
    again = Gradebook(tmp_path / FILE_NAME)
    assert [r.learner for r in again.latest(["ada", "bob"])] == ["ada"]
    again.close()


def test_a_results_folder_whose_gradebook_is_not_one_is_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / FILE_NAME).write_bytes(b"not a database, but a file a TA copied here by mistake" * 100)
    with pytest.raises(ResultsUnwritable, match="file is not a database"):
        Gradebook(out / FILE_NAME)
    write_nb(tmp_path / "subs" / "ada.ipynb", SQUARES_SOLVED)
    done = batch(str(tmp_path / "subs"), "--out", str(out), "--lesson", "squares", *LESSONS)
    assert done.returncode == 1, done.stderr
    assert "could not be used (file is not a database)" in done.stderr
    assert "Traceback" not in done.stderr
