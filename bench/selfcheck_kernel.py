"""Time ``check("generate")`` in a live Jupyter kernel, as a learner calls it.

A kernel is started with jupyter_client (its start is timed but kept out of the check figures), the
notebook's connect cell runs, then the learner's answers (the solution's answer cells), then:

- ``cold_connect_and_check``: ``connect(...)`` and ``check("generate")`` in one cell, in a fresh kernel:
  the worst case, the check waits for the whole background load of the suites;
- ``connect``: the connect cell alone (the load then goes on in the background);
- ``loaded``: seconds from ``connect`` until the suites were ready;
- ``first_after_load``: the first ``check("generate")`` once they are;
- ``warm``: further ``check("generate")`` calls; ``check_all_warm``: ``check_all()`` once warm.

Times are taken inside the kernel (``time.perf_counter`` around the call), so they are what the learner
waits for, less Jupyter's message round trip, which is reported separately (``roundtrip``).

Prints one JSON object.  Usage: ``python bench/selfcheck_kernel.py [--warm N]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent

TIMED = """
import time as _bench_time
_bench_start = _bench_time.perf_counter()
{call}
_bench_seconds = _bench_time.perf_counter() - _bench_start
"""


def _run(kc: Any, code: str, timeout: float = 120) -> dict[str, Any]:
    """Execute ``code``; return the reply content (with ``user_expressions`` for ``_bench_seconds``)."""
    reply = kc.execute_interactive(
        code, timeout=timeout, user_expressions={"s": "_bench_seconds"}, output_hook=lambda msg: None
    )
    content = reply["content"]
    if content["status"] != "ok":
        raise RuntimeError(f"kernel cell failed: {content.get('ename')}: {content.get('evalue')}")
    return content


def _seconds(content: dict[str, Any]) -> float:
    expr = content["user_expressions"]["s"]
    return float(expr["data"]["text/plain"])


def answer_cells() -> list[str]:
    nb = json.loads((REPO / "solutions" / "decode.ipynb").read_text(encoding="utf-8"))
    out = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code" or "self-check" in cell.get("metadata", {}).get("tags", []):
            continue
        out.append(cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"]))
    return out


CONNECT = 'from grader.selfcheck import connect\ncheck, check_all, hint = connect("decode", globals())'
WAIT_LOADED = """
while check.__self__._loading.is_alive():
    _bench_time.sleep(0.002)
_bench_seconds = _bench_time.perf_counter() - _bench_connect_at
"""


def _kernel(cwd: Path) -> tuple[Any, Any, float]:
    from jupyter_client.manager import start_new_kernel

    t0 = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(cwd))
    return km, kc, time.perf_counter() - t0


def _prepare(kc: Any) -> None:
    _run(kc, "import time as _bench_time\n_bench_seconds = 0.0")
    for source in answer_cells():
        _run(kc, source)


def measure(warm: int) -> dict[str, Any]:
    """Two kernels: one where the learner checks at once after connecting (cold), one timed step by step."""
    km, kc, cold_start = _kernel(REPO)
    try:
        _prepare(kc)
        cold = _seconds(_run(kc, TIMED.format(call=CONNECT + '\ncheck("generate")')))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)

    km, kc, kernel_start = _kernel(REPO)
    try:
        _prepare(kc)
        connect = _seconds(_run(kc, TIMED.format(call=CONNECT) + "_bench_connect_at = _bench_start\n"))
        loaded = _seconds(_run(kc, WAIT_LOADED))
        first = _seconds(_run(kc, TIMED.format(call='check("generate")')))
        warm_s, roundtrips = [], []
        for _ in range(warm):
            r0 = time.perf_counter()
            content = _run(kc, TIMED.format(call='check("generate")'))
            roundtrips.append(time.perf_counter() - r0)
            warm_s.append(_seconds(content))
        check_all = _seconds(_run(kc, TIMED.format(call="check_all()")))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return {
        "kernel_start_s": [cold_start, kernel_start],
        "cold_connect_and_check_s": cold,
        "connect_s": connect,
        "loaded_s": loaded,
        "first_after_load_s": first,
        "warm_s": warm_s,
        "warm_median_s": statistics.median(warm_s) if warm_s else None,
        "warm_roundtrip_median_s": statistics.median(roundtrips) if roundtrips else None,
        "check_all_warm_s": check_all,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=10)
    args = parser.parse_args()
    json.dump(measure(args.warm), sys.stdout)
    print()
