"""One learner's folder or archive member used to stop the class (issue 29, items 3 and 5), and zip bombs.
Each case builds a class of two (an honest solution and the attacker) under /tmp/h5/archives/CASE and runs
`grade batch` on it; every case should grade the honest learner and give the attacker one row, with a reason.

  deep-folder   a Moodle folder per learner, one nested 1,100 deep (was: a bare RecursionError, nobody graded)
  deep-zip      the same as a zip (was: the whole archive refused)
  long-name     a 240-character file name behind Canvas's prefix (was: "File name too long", archive refused)
  clash         members x.ipynb and x.ipynb/y.ipynb (was: "File exists", archive refused)
  bomb          one member that inflates 1,000 times, and members that together pass the 2 GB cap
  nested        a zip inside the zip
Usage: python3 attacks/hostile_archives.py CASE [OUT]
"""
import json, os, pathlib, shutil, sys, zipfile
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from _nb import load, run

case = sys.argv[1]
top = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "/tmp/h5/archives") / case
top.mkdir(parents=True, exist_ok=True)
honest = json.dumps(load("decode"))
ada, eve = "Ada Lovelace_4711_assignsubmission_file_", "Eve Mallory_4712_assignsubmission_file_"
subs = top / ("class" if case == "deep-folder" else "class.zip")
def remove_chain(here):
    """Empty the 1,100-deep folder one level at a time (shutil.rmtree recurses, and would fail on it)."""
    while (here / "a").is_dir():
        for name in os.listdir(here / "a"):
            if name != "a":
                os.unlink(here / "a" / name)
        if (here / "a" / "a").is_dir():
            os.rename(here / "a" / "a", here / "a.up")
        os.rmdir(here / "a")
        if (here / "a.up").is_dir():
            os.rename(here / "a.up", here / "a")


if case == "deep-folder":
    if (subs / eve).exists():
        remove_chain(subs / eve)
    shutil.rmtree(subs, ignore_errors=True)
    (subs / ada).mkdir(parents=True, exist_ok=True)
    (subs / ada / "decode.ipynb").write_text(honest)
    here = subs / eve
    here.mkdir(exist_ok=True)
    fd = os.open(here, os.O_RDONLY)
    for _ in range(1100):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("decode.ipynb", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
        f.write(honest)
    os.close(fd)
else:
    with zipfile.ZipFile(subs, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{ada}/decode.ipynb", honest)
        if case == "deep-zip":
            zf.writestr(f"{eve}/" + "a/" * 1100 + "decode.ipynb", honest)
        elif case == "long-name":
            zf.writestr(f"{eve}/" + "x" * 240 + ".ipynb", honest)
        elif case == "clash":
            zf.writestr(f"{eve}/x.ipynb", honest)
            zf.writestr(f"{eve}/x.ipynb/y.ipynb", honest)
        elif case == "bomb":
            with zf.open(f"{eve}/decode.ipynb", "w", force_zip64=True) as member:
                for _ in range(300):
                    member.write(b" " * (1 << 20))  # 300 MB of spaces: over one notebook's cap, ~1,000:1
            for i in range(9):  # nine 240 MB members: together past the archive's 2 GB
                with zf.open(f"{eve}/copy{i}.ipynb", "w", force_zip64=True) as member:
                    for _ in range(240):
                        member.write(b" " * (1 << 20))
        elif case == "nested":
            zf.writestr(f"{eve}/decode.zip", b"PK\x03\x04 a zip of the notebook")
p, _ = run(["grade", "batch", str(subs), "--lesson", "decode", "--out", str(top / "results"), "--jobs", "1"])
print(p.stdout[-1500:], p.stderr[-1500:])
rows = top / "results" / "results.jsonl"
for line in rows.read_text().splitlines() if rows.exists() else ():
    row = json.loads(line)
    why = " | ".join(q["feedback"][0] for q in row["questions"][:1] if row["status"] != "graded")
    print(f"  {row['learner']}: {row['status']} {row['score']}/{row['max_score']} {why[:240]}")
if case == "deep-folder":
    remove_chain(subs / eve)
