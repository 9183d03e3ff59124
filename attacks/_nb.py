"""Helpers for the red-team attack scripts: craft notebooks from the solutions, run grade under caps."""
import copy, json, os, pathlib, subprocess, sys, time, resource

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT), GRADER_CACHE_DIR="/work/wt/.cache/hostile5", GRADER_DAEMON="off")


def load(lesson, kind="solutions"):
    return json.loads((ROOT / kind / f"{lesson}.ipynb").read_text())


def code_cell(src, cid=None, tags=None):
    c = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": src}
    if cid:
        c["id"] = cid
    if tags:
        c["metadata"]["tags"] = tags
    return c


def replace(nb, cid, src):
    nb = copy.deepcopy(nb)
    for c in nb["cells"]:
        if c.get("id") == cid:
            c["source"] = src
            return nb
    raise KeyError(cid)


def append(nb, src, **kw):
    nb = copy.deepcopy(nb)
    nb["cells"].append(code_cell(src, **kw))
    return nb


def write(nb, path):
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, indent=1))
    return path


def run(args, cap=4_000_000_000, timeout=600, env=None):
    """Run a grade command under RLIMIT_AS, nice, report wall time and children's max RSS."""
    t = time.time()
    cmd = ["prlimit", f"--as={cap}", "--", "nice", "-n", "10", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env or ENV, cwd=ROOT)
    dt = time.time() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"$ {' '.join(args)}\n  rc={p.returncode} wall={dt:.1f}s children-maxrss={rss/1024:.0f} MB")
    return p, dt


def run_watch(args, cap=4_000_000_000, timeout=900, env=None, interval=0.2):
    """Like run(), but samples the RSS and CPU of every descendant (by /proc) and prints each one's peak."""
    import threading
    t = time.time()
    cmd = ["prlimit", f"--as={cap}", "--", "nice", "-n", "10", *args]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env or ENV, cwd=ROOT)
    peaks = {}

    def descendants(root):
        kids = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    st = open(f"/proc/{d}/stat").read()
                    ppid = int(st.rsplit(")", 1)[1].split()[1])
                    kids.setdefault(ppid, []).append(int(d))
                except Exception:
                    pass
        out, todo = [], [root]
        while todo:
            x = todo.pop()
            out.append(x)
            todo.extend(kids.get(x, []))
        return out

    def sample():
        while p.poll() is None:
            for pid in descendants(p.pid):
                try:
                    cmdl = open(f"/proc/{pid}/cmdline").read().replace("\0", " ")[:400]
                    rss = 0
                    for line in open(f"/proc/{pid}/status"):
                        if line.startswith("VmRSS"):
                            rss = int(line.split()[1]) // 1024
                    st = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                    cpu = (int(st[11]) + int(st[12])) / os.sysconf("SC_CLK_TCK")
                    k = (pid, cmdl)
                    a, b = peaks.get(k, (0, 0))
                    peaks[k] = (max(a, rss), max(b, cpu))
                except Exception:
                    pass
            time.sleep(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9) if False else p.kill()
        out, err = p.communicate()
    th.join(1)
    dt = time.time() - t
    print(f"$ {' '.join(args)}\n  rc={p.returncode} wall={dt:.1f}s")
    for (pid, c), (rss, cpu) in sorted(peaks.items(), key=lambda kv: -kv[1][0])[:14]:
        print(f"   pid {pid}: peak RSS {rss} MB, cpu {cpu:.1f}s  {c}")
    p.stdout_text, p.stderr_text = out, err
    return p, dt
