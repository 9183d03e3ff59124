"""Moodle's download names carry the *participant id*, which is assign_user_mapping.id: one per
(assignment, user) pair (mod/assign get_uniqueid_for_user; e.g. the gradereport_strathblindusers plugin maps
"user id to array of assignmentid => blind ID"). The same learner therefore has a different participant id in
each lesson's assignment. `grade chapter`/`grade class` match learners across lessons by LMS id: is each
Moodle learner split into one row per lesson, each with "no submission" elsewhere?
Usage: python3 attacks/chapter_moodle_participant_ids.py
"""
import sys, shutil, pathlib, csv
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
d = pathlib.Path("/tmp/h5/chapter_moodle"); shutil.rmtree(d, ignore_errors=True)
c = d / "class"
# the ids Moodle would write: auto-increment per (assignment, user)
ids = {"request": {"Ada Lovelace": 101, "Bob Jones": 102}, "prefill": {"Ada Lovelace": 151, "Bob Jones": 152},
       "decode": {"Ada Lovelace": 205, "Bob Jones": 206}}
for lesson, people in ids.items():
    for name, pid in people.items():
        write(load(lesson), c / lesson / f"{name}_{pid}_assignsubmission_file_{lesson}.ipynb")
p, dt = run(["grade", "class", str(c), "--out", str(d / "out")], timeout=900)
print(p.stdout[-600:])
for row in csv.reader(open(d / "out/chapter/chapter.csv")):
    print(row[:12])
print((d / "out/chapter/chapter.md").read_text()[-1500:])
