"""By-hand values (Part 1: Llama-3-8B in BF16 on one H100 SXM, 10% reserved, 8,192-token sequences) and the three
choices.

The feedback never states a by-hand answer. Each question's known slips are far apart (a test of the lesson checks
it), so the one within 0.2% of the learner's number is named; two slips that give the same number are named
together, in one sentence. The count of sequences is compared exactly (it is a whole number, rounded down).
"""

from grader.testing import question

PER_TOKEN = 2 * 32 * 8 * 128 * 2  # Llama-3-8B, BF16 cache
WEIGHTS = 8.0e9 * 2  # BF16
BUDGET = 80e9 * 0.9 - WEIGHTS
SEQ = PER_TOKEN * 8192
GIB = 2**30

KNOWN = {
    "token_bytes": [
        (
            "exactly half, what two slips give: K or V only (a layer stores a key and a value, the factor 2), or "
            "1 byte per value where the cache is BF16 (2 bytes)",
            PER_TOKEN / 2,
        ),
        ("what the 32 query heads give: only the 8 KV heads are stored", PER_TOKEN * 4),
        ("one layer only: each of the 32 layers stores its own keys and values", PER_TOKEN / 32),
        ("the answer in bits: BF16 is 2 bytes per value", PER_TOKEN * 8),
        ("what the worked example's 80 layers (Llama-3-70B's) give: this model has 32", PER_TOKEN * 80 / 32),
        ("the head dimension left out: each key and value is a vector of 128 numbers", PER_TOKEN / 128),
        ("the answer in MB: the question asks for bytes", PER_TOKEN / 1e6),
        ("the answer in MiB (2^20 bytes): the question asks for bytes", PER_TOKEN / 2**20),
    ],
    "budget_gb": [
        ("the answer in GiB (2^30 bytes): the course uses GB, 1e9 bytes", BUDGET * 1e9 / GIB),
        (
            "what two slips give: the 10% reserve left out, or the weights at 1 byte per parameter where they are BF16 "
            "(2 bytes)",
            80 - WEIGHTS / 1e9,
        ),
        (
            "the reserve taken from what is left after the weights: it is 10% of the whole 80 GB",
            (80 - WEIGHTS / 1e9) * 0.9,
        ),
        ("the weights left out: they are loaded first, and the cache gets what they leave", 80 * 0.9),
        ("the answer in bytes: divide by 1e9 for GB", BUDGET),
        ("the weights at 4 bytes per parameter (32 bits): BF16 is 2 bytes", 72 - 32),
        ("the weights in bits: BF16 is 2 bytes per parameter", 72 - 128),
    ],
    "sequences_fit": [
        ("not rounded down: only whole sequences can be served", BUDGET / SEQ),
        (
            "what two slips give: rounded up (the last sequence must fit whole), or sequences of 8,000 tokens where "
            "they have 8,192",
            53,
        ),
        ("one sequence taken as 1 GB: it is 1 GiB (2^30 bytes), which is 1.074 GB, so fewer fit", 56),
        ("what the 32 query heads give: only the 8 KV heads are stored", 13),
        ("what two slips give: K or V only (a key and a value, the factor 2), or an FP8 cache where it is BF16", 104),
        (
            "what two slips give: the 10% reserve left out, or the weights at 1 byte per parameter where they are BF16",
            59,
        ),
        ("the weights left out: the cache gets only what they leave", 67),
        ("the tokens that fit, not the sequences: each sequence needs 8,192 of them", BUDGET // PER_TOKEN),
        ("the factor 2 counted twice (4 x ... where 2 belongs)", 26),
        ("what the worked example's 80 layers (Llama-3-70B's) give: this model has 32", 20),
    ],
    "even_context": [
        (
            "exactly twice, what two slips give: K or V only (the factor 2 left out), or 1 byte per value where the "
            "cache is BF16",
            WEIGHTS / PER_TOKEN * 2,
        ),
        ("what the 32 query heads give: only the 8 KV heads are stored", WEIGHTS / PER_TOKEN / 4),
        (
            "exactly half, what two slips give: the weights at 1 byte per parameter where they are BF16 (2 bytes), or "
            "the factor 2 counted twice",
            WEIGHTS / PER_TOKEN / 2,
        ),
        (
            "the context at which the cache fills the whole budget: the question asks where the KV read equals the "
            "weight read",
            BUDGET / PER_TOKEN,
        ),
        (
            "what the worked example's 80 layers (Llama-3-70B's) give: this model has 32",
            WEIGHTS / (PER_TOKEN * 80 / 32),
        ),
        ("the weights in GB (16), not in bytes (16e9)", WEIGHTS / 1e9 / PER_TOKEN),
        ("the KV bytes per token over the weight bytes: the formula is upside down", PER_TOKEN / WEIGHTS),
        ("the weights counted in bits: both sides are in bytes", WEIGHTS / (8 * PER_TOKEN)),
    ],
}

VALUES = {
    "token_bytes": (
        PER_TOKEN,
        1e-6,
        "the bytes of KV cache per token",
        "2 x layers x KV heads x head dimension x bytes per value.",
    ),
    "budget_gb": (
        BUDGET / 1e9,
        1e-6,
        "the GB left for the KV cache",
        "90% of the 80 GB, minus the weights (8.0e9 parameters x 2 bytes), in GB.",
    ),
    "sequences_fit": (
        BUDGET // SEQ,
        1e-12,
        "the number of 8,192-token sequences that fit",
        "The budget in bytes over (bytes per token x 8,192), rounded down to a whole number.",
    ),
    "even_context": (
        WEIGHTS / PER_TOKEN,
        2e-3,
        "the context at which the KV read equals the weight read",
        "The weight bytes over the KV bytes per token.",
    ),
}


def _value(learner, kv, name):
    expected, rel, meaning, advice = VALUES[name]
    kv.expect_value(name, learner.value(name), expected, meaning=meaning, known=KNOWN[name], rel=rel, advice=advice)


@question("token_bytes")
def test_token_bytes(learner, kv):
    _value(learner, kv, "token_bytes")


@question("budget_gb")
def test_budget_gb(learner, kv):
    _value(learner, kv, "budget_gb")


@question("sequences_fit")
def test_sequences_fit(learner, kv):
    _value(learner, kv, "sequences_fit")


@question("even_context")
def test_even_context(learner, kv):
    _value(learner, kv, "even_context")


# -- choices -------------------------------------------------------------------------------------------------------

#: Why each wrong option is wrong, keyed by the letter of the solution this was written against (used only while
#: the solution still gives that letter, so a reordered notebook falls back to the general hint).
WHY_NOT = {
    "answer_gqa": (
        "B",
        {
            "A": "Every query head does attend over the whole context, but with GQA 8 query heads share one KV "
            "head: the cache stores the 8 KV heads' keys and values, not 64.",
            "C": "A single key and value for the whole layer is multi-query attention (1 KV head); Llama-3-70B "
            "keeps 8.",
            "D": "GQA shares heads, it does not drop the values: each KV head still stores a key and a value (the "
            "factor 2).",
        },
    ),
    "answer_gib": (
        "C",
        {
            "A": "The cache does store a key and a value for every KV head in every layer: the factor 2 is right.",
            "B": "The weights are read at every step, but they are not part of the sequence's KV cache.",
            "D": "The 8 KV heads are already in the worked example's 327,680 bytes per token.",
        },
    ),
    "answer_fp8_cache": (
        "D",
        {
            "A": "The weights do not change, but the cache's bytes per token halve: that changes both numbers.",
            "B": "The context is weight bytes / KV bytes per token: the bytes per token are in it.",
            "C": "Reading faster is not the point: with half the bytes per token, the cache needs twice the positions "
            "to weigh as much as the weights.",
        },
    ),
}

GENERAL = {
    "answer_gqa": "The cache stores a key and a value per KV head; how many query heads share one?",
    "answer_gib": "Divide 2,684,354,560 by 1e9 and by 2^30.",
    "answer_fp8_cache": "Both numbers have the bytes per token in their denominator.",
}


def _choice(learner, reference, kv, name):
    kv.expect_choice(name, learner.value(name), getattr(reference, name), GENERAL[name], WHY_NOT[name])


@question("answer_gqa")
def test_answer_gqa(learner, reference, kv):
    _choice(learner, reference, kv, "answer_gqa")


@question("answer_gib")
def test_answer_gib(learner, reference, kv):
    _choice(learner, reference, kv, "answer_gib")


@question("answer_fp8_cache")
def test_answer_fp8_cache(learner, reference, kv):
    _choice(learner, reference, kv, "answer_fp8_cache")
