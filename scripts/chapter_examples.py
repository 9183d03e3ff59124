"""Write ``examples/class/``: a small class's chapter download, one Canvas-named notebook per learner and lesson.

    python3 scripts/chapter_examples.py        # then: grade class examples/class --out results/class

Each notebook is the lesson's learner notebook with the learner's answers in its answer cells: the solution's,
except where the plan below gives the learner a mistake from the lesson's corpus (``exercises/<id>/mistakes/``,
the header comments left out) or leaves the stub. Decode's are copies of ``examples/submissions/``. Some
learners hand nothing in for a lesson (Katherine no Decode and no KV cache, Alan no Prefill and no Roofline), and
one hands Decode in late (Canvas's ``_LATE_`` flag). Run it again
after a lesson's source changes, so the examples are its current notebooks.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "examples" / "class"

#: Canvas's download names: <sortable name>[_LATE]_<user id>_<submission id>_<file name>.
LEARNERS = {
    "ada": "lovelaceada_101",
    "grace": "hoppergrace_102",
    "alan": "turingalan_103",
    "katherine": "johnsonkatherine_104",
}
#: (learner, lesson) -> the corpus files whose answers they gave, and the questions they left as the stub.
PLAN: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = {
    ("ada", "request"): ((), ()),
    ("ada", "prefill"): ((), ()),
    ("grace", "request"): (("lat_itl_ms", "itl_in_ms"), ()),
    ("grace", "prefill"): (("pf_one_flop_per_param", "tm_sparse_peak", "r_inverted"), ()),
    ("alan", "request"): (("lat_n_out_gaps", "mean_is_median", "answer_tail_target_a"), ()),
    ("katherine", "request"): ((), ("percentile", "latency_summary")),
    ("katherine", "prefill"): (("kg_query_heads", "k_k_only"), ()),
    ("ada", "roofline"): ((), ()),
    ("grace", "roofline"): (("di_no_factor_two", "st_sum"), ()),
    ("katherine", "roofline"): (("af_max",), ()),
    ("ada", "kv_cache"): ((), ()),
    ("grace", "kv_cache"): (("kp_gib", "bg_no_reserve"), ()),
    ("alan", "kv_cache"): (("ks_ms",), ()),
    ("ada", "batching"): ((), ()),
    ("grace", "batching"): (("f_per_ms",), ()),
    ("alan", "batching"): (("m_ceil", "c_little_a"), ()),
    ("katherine", "batching"): (("s_no_kv",), ()),
}
#: Decode: the bundled submission of the same learner; Alan's is late; Katherine hands in no Decode.
DECODE = {"ada": "", "grace": "", "alan": "_LATE"}


def _source(cell: dict[str, object]) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else str(source)


def _answer(mistake: Path) -> tuple[str, str]:
    """(the question a corpus file answers, its code without the header comments)."""
    lines = mistake.read_text(encoding="utf-8").splitlines()
    (question,) = [line.split()[2].rstrip(":") for line in lines if line.startswith("# expect ")]
    code = "\n".join(line for line in lines if not line.startswith("# ")).strip()
    return question, code


def notebook(lesson: str, mistakes: tuple[str, ...], stubs: tuple[str, ...]) -> str:
    learner = json.loads((REPO / "notebooks" / f"{lesson}.ipynb").read_text(encoding="utf-8"))
    solution = {c["id"]: _source(c) for c in json.loads((REPO / "solutions" / f"{lesson}.ipynb").read_text())["cells"]}
    answers = dict(_answer(REPO / "exercises" / lesson / "mistakes" / f"{name}.py") for name in mistakes)
    questions = [c["id"] for c in learner["cells"] if f"check_{c['id']}" in solution]
    for cell in learner["cells"]:
        if cell["id"] in questions and cell["id"] not in stubs:
            cell["source"] = answers.get(cell["id"], solution[cell["id"]])
    return json.dumps(learner, indent=1, ensure_ascii=False) + "\n"


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    for (who, lesson), (mistakes, stubs) in sorted(PLAN.items(), key=lambda item: item[0][::-1]):
        name, _, user = LEARNERS[who].rpartition("_")
        path = OUT / lesson / f"{name}_{user}_{9000 + int(user)}_{lesson}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(notebook(lesson, mistakes, stubs), encoding="utf-8")
    for who, late in DECODE.items():
        name, _, user = LEARNERS[who].rpartition("_")
        path = OUT / "decode" / f"{name}{late}_{user}_{9000 + int(user)}_decode.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / "examples" / "submissions" / f"{who}.ipynb", path)
    print(f"Wrote {sum(1 for _ in OUT.rglob('*.ipynb'))} notebooks in {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
