"""--extensions CSV edge cases a TA can easily produce:
 1. the same learner twice (an old row left in the sheet, then a new one): which one applies, is it said?
 2. an extension earlier than the course due date (a typo: 2024-02-01 for 2024-04-01): accepted silently?
 3. a learner id that matches nobody (a typo): silently ignored, the real learner penalised?
Usage: python3 attacks/extensions_csv.py
"""
import sys, shutil, pathlib, csv
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *
d = pathlib.Path("/tmp/h5/extensions"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"
write(load("decode"), subs / "Decode_alice_attempt_2024-03-03-10-00-00_decode.ipynb")
write(load("decode"), subs / "Decode_bob_attempt_2024-03-03-10-00-00_decode.ipynb")
write(load("decode"), subs / "Decode_carol_attempt_2024-03-03-10-00-00_decode.ipynb")
ext = d / "ext.csv"
ext.write_text("learner,due\n"
               "alice,2024-03-10T00:00Z\n"      # alice: extension to the 10th ...
               "alice,2024-02-01T00:00Z\n"      # ... and a second, older row (earlier than the due date!)
               "bobb,2024-03-10T00:00Z\n"       # a typo for bob: matches nobody
               "carol,2024-03-10T00:00Z\n")     # carol: a clean extension (control)
env = dict(ENV, TZ="UTC")
p, dt = run(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--due", "2024-03-01T09:00Z",
             "--late-penalty", "per-day:10", "--extensions", str(ext)], env=env)
print(p.stdout); print(p.stderr[-800:])
for row in csv.reader(open(d / "out/grades.csv")):
    print([row[i] for i in (0, 4, 9, 10, 11, 12, 13)])
