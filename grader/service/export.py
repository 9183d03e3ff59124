"""``grade serve export``: the store's last hand-ins as a folder ``grade batch`` grades, identity from the token.

``OUT/<lesson>/<learner>.ipynb`` for each learner's last hand-in of each lesson, the learner id being the one
their token named (a flat folder: ``grade batch`` takes the learner id from the file's stem), its modification
time set to when the service received it, which is what ``grade batch`` reads as the hand-in time of a plain
folder (:func:`grader.batch.late.submitted_at`), so ``--due``, ``--extensions`` and ``--late-penalty`` apply
exactly as to any batch. ``OUT/<lesson>/receipts.csv`` lists every hand-in with its receipt, for the record.
"""

from __future__ import annotations

import csv
import io
import os
from datetime import datetime
from pathlib import Path

from grader.files import atomic_path, write_atomic
from grader.service.store import Store

RECEIPTS_FILE = "receipts.csv"


def export_submissions(store: Store, out: Path) -> list[Path]:
    """Write the folder; return the notebooks written."""
    written = []
    for stored in store.last_submissions():
        receipt = stored.receipt
        folder = out / receipt["lesson"]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{receipt['learner']}.ipynb"
        with atomic_path(path) as temporary:
            temporary.write_bytes(stored.notebook)
            moment = datetime.fromisoformat(receipt["received_at"]).timestamp()
            os.utime(temporary, (moment, moment))
        written.append(path)
    by_lesson: dict[str, list[list[str]]] = {}
    for r in store.all_receipts():
        by_lesson.setdefault(r["lesson"], []).append(
            [r["learner"], str(r["attempt"]), r["received_at"], r["late"], r["sha256"], str(r["id"])]
        )
    for lesson, rows in by_lesson.items():
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(["learner", "attempt", "received_at", "late", "sha256", "receipt"])
        writer.writerows(rows)
        write_atomic(out / lesson / RECEIPTS_FILE, text.getvalue())
    return written
