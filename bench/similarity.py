"""Similarity flags a teaching assistant can act on: precision and recall on a class with planted near-copies.

The class (tests/fixtures/similarity_class.py) is independently written answers, five ways per function with
spots where learners differ, a third of the class doing only the going-further one-liners most learners
write alike, plus near-copies of some learners (variables renamed, cells reformatted, commented and
reordered). :func:`grader.batch.similar.similar_pairs` runs on it with the lesson's skeleton as the starter.
A flag is a true positive when it is a planted pair; every other flag is an independent pair flagged.

Prints one JSON object: flags, precision, recall, and where the planted pairs rank.
Usage: ``python bench/similarity.py [LEARNERS] [COPIES] [SEED] [REWRITTEN]`` (default 117 learners, 6 copies,
seed 0, and 0 of a copy's main functions written again the copier's own way: a partial copy).
``python bench/similarity.py --seeds 41 [REWRITTEN]`` sums the counts over seeds 0-40.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the class fixture lives in tests/


def main(learners: int = 117, copies: int = 6, seed: int = 0, rewritten: int = 0) -> dict[str, object]:
    from grader.batch.similar import similar_pairs
    from tests.fixtures.similarity_class import SKELETON, make_class

    made = make_class(learners, copies, seed, rewritten)
    started = time.perf_counter()
    pairs = similar_pairs(made.codes, starter=list(SKELETON.values()))
    seconds = time.perf_counter() - started
    flagged = [(p.first, p.second) for p in pairs]
    true = [pair for pair in flagged if pair in made.copies]
    return {
        "learners": len(made.codes),
        "planted": len(made.copies),
        "flagged": len(flagged),
        "true_flags": len(true),
        "false_flags": len(flagged) - len(true),
        "precision": round(len(true) / len(flagged), 3) if flagged else 1.0,
        "recall": round(len(true) / len(made.copies), 3) if made.copies else 1.0,
        "planted_ranks": [i + 1 for i, pair in enumerate(flagged) if pair in made.copies],
        "seconds": round(seconds, 3),
    }


def over_seeds(seeds: int, rewritten: int = 0) -> dict[str, object]:
    """The counts of :func:`main` summed over seeds ``0 .. seeds - 1``, and the seeds with a false flag or a miss."""
    runs = [main(seed=seed, rewritten=rewritten) for seed in range(seeds)]
    total = {
        key: sum(int(str(run[key])) for run in runs) for key in ("planted", "flagged", "true_flags", "false_flags")
    }
    return {
        "seeds": seeds,
        "rewritten": rewritten,
        **total,
        "precision": round(total["true_flags"] / total["flagged"], 3) if total["flagged"] else 1.0,
        "recall": round(total["true_flags"] / total["planted"], 3),
        "seeds_with_false_flags": [s for s, run in enumerate(runs) if run["false_flags"]],
        "seconds": round(sum(float(str(run["seconds"])) for run in runs), 2),
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["--seeds"]:
        print(json.dumps(over_seeds(*(int(a) for a in sys.argv[2:4])), indent=2))
    else:
        print(json.dumps(main(*(int(a) for a in sys.argv[1:5])), indent=2))
