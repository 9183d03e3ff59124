"""Moodle download names are <Full Name>_<participantid>_assignsubmission_file_<learner's own file name>.
Mallory's own file name is a whole Moodle name of Alice's. Is Mallory's notebook put on Alice (participant
4711), or Alice's row dropped as "two submissions"?  Usage: python3 attacks/moodle_filename_spoof.py
"""
import sys, json, shutil, csv, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

d = pathlib.Path("/tmp/h5/moodle_spoof"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"
write(load("decode"), subs / "Alice Smith_4711_assignsubmission_file_decode.ipynb")
write(load("decode"), subs / "Bob Jones_4712_assignsubmission_file_decode.ipynb")
write(load("decode", "notebooks"), subs / "Mallory Evil_666_assignsubmission_file_Alice Smith_4711_assignsubmission_file_decode.ipynb")
p, dt = run(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--export", "moodle"])
print(p.stdout[-3000:]); print(p.stderr[-3000:])
for f in ["grades.csv", "moodle-import.csv"]:
    print("---", f)
    for row in csv.reader(open(d / "out" / f)):
        print(row[:10])
