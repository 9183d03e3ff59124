"""Canvas download names are <lastfirst>[_LATE]_<canvasid>_<submissionid>_<the learner's own file name>.
The learner chooses the last part. Mallory (late, untouched notebook) uploads a file whose own name looks
like a whole Canvas name of Alice's. Does the batch attribute Mallory's notebook to Alice, drop Alice's row,
or forget Mallory's lateness?  Usage: python3 attacks/canvas_filename_spoof.py [MALLORY_OWN_FILENAME]
"""
import sys, json, shutil, csv, pathlib
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import *

own = sys.argv[1] if len(sys.argv) > 1 else "alicealice_12345_67890_decode.ipynb"
d = pathlib.Path("/tmp/h5/canvas_spoof"); shutil.rmtree(d, ignore_errors=True)
subs = d / "subs"
write(load("decode"), subs / "alicealice_12345_67890_decode.ipynb")
write(load("decode"), subs / "bobbob_222_333_decode.ipynb")
write(load("decode", "notebooks"), subs / f"mallorym_LATE_666_999_{own}")
p, dt = run(["grade", "batch", str(subs), "--out", str(d / "out"), "--lesson", "decode", "--export", "canvas",
             "--due", "2024-03-01T09:00Z", "--late-penalty", "per-day:10"])
print(p.stdout[-3000:]); print(p.stderr[-3000:])
for f in ["grades.csv", "canvas-import.csv"]:
    print("---", f)
    for row in csv.reader(open(d / "out" / f)):
        print(row[:10])
