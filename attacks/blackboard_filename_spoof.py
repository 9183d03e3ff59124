"""Blackboard download names are <Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<learner's file name>.
Mallory hands in 2 days late; her own file name carries an earlier '_attempt_<time>_' (and another
user's name). Is her lateness read from her own text, is she confused with someone?
Usage: python3 attacks/blackboard_filename_spoof.py
"""
import sys, json, shutil, csv, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

d = pathlib.Path("/tmp/h5/bb_spoof"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"
write(load("decode"), subs / "Decode_alice_attempt_2024-02-29-10-00-00_decode.ipynb")
write(load("decode"), subs / "Decode_bob_attempt_2024-02-29-11-00-00_decode.ipynb")
# Mallory: late (March 3rd); her own file name claims Feb 28th
write(load("decode"), subs / "Decode_mallory_attempt_2024-03-03-10-00-00_x_attempt_2024-02-28-09-00-00_decode.ipynb")
# Eve: late; own name is a whole Blackboard name of alice's
write(load("decode", "notebooks"), subs / "Decode_eve_attempt_2024-03-03-10-00-00_Decode_alice_attempt_2024-02-28-09-00-00_decode.ipynb")
p, dt = run(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--export", "blackboard",
             "--due", "2024-03-01T09:00", "--late-penalty", "per-day:10"], env=dict(ENV, TZ="UTC"))
print(p.stdout[-3000:]); print(p.stderr[-3000:])
for f in ["grades.csv", "blackboard-import.csv"]:
    print("---", f)
    for row in csv.reader(open(d / "out" / f)):
        print(row[:14])
