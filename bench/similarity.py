"""Similarity flags a teaching assistant can act on: precision and recall on a class with planted near-copies.

The class (tests/fixtures/similarity_class.py) is independently written answers, five ways per function with
spots where learners differ, a third of the class doing only the going-further one-liners most learners
write alike, plus near-copies of some learners (variables renamed, cells reformatted, commented and
reordered). :func:`grader.batch.similar.similar_pairs` runs on it with the lesson's skeleton as the starter.
A flag is a true positive when it is a planted pair; every other flag is an independent pair flagged.

Prints one JSON object: flags, precision, recall, and where the planted pairs rank.
Usage: ``python bench/similarity.py [LEARNERS] [COPIES] [SEED]`` (default 117 learners, 6 copies, seed 0).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the class fixture lives in tests/


def main(learners: int = 117, copies: int = 6, seed: int = 0) -> dict[str, object]:
    from grader.batch.similar import similar_pairs
    from tests.fixtures.similarity_class import SKELETON, make_class

    made = make_class(learners, copies, seed)
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


if __name__ == "__main__":
    print(json.dumps(main(*(int(a) for a in sys.argv[1:4])), indent=2))
