# %% [markdown]
# # Prefill vs decode on one accelerator
#
# Prefill and decode run on the same chips, often in the same forward pass. In this lesson you will draw the
# roofline, the one picture that says whether a step waits for arithmetic or for memory; use it to time a
# prefill and a decode step with a single formula; find the batch at which decode stops being memory-bound;
# and see why a long prompt scheduled between decode steps makes every other user's reply stutter, and how
# chunked prefill bounds that stall.
#
# This is lesson 4 of the chapter *trace a generation request through prefill and decode*: it puts lesson 2's
# prefill and lesson 3's decode side by side on the chapter's replica.

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell, the roofline plot and
#   `check_all()`) are not run by the grader. **Cells marked self-check are only for you; put your answers in
#   the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("itl_during_prefill")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6, except
#   where a question says you may round.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s,
#   1 ms = 1e-3 s.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("roofline", globals())

# %% [markdown]
# ## Predict first
#
# The chapter's replica (below) is decoding 32 chat replies at once, one token each per step, about 7 ms a step
# at its peak rates. A new request arrives with a 4,000-token prompt. Before you read on, write down a guess:
#
# 1. If the server runs that whole prefill in the next step, how long do the 32 users wait for their next
#    token: about 7 ms, about 14 ms, about 140 ms or several seconds?
# 2. If the batch grew from 32 to 64 replies, would each step take about twice as long?
#
# Keep your guesses; the next section lets you check them.

# %% [markdown]
# ## The idea
#
# **The roofline.** A chip does at most its peak arithmetic rate, P FLOP/s, and reads memory at most at its
# bandwidth, W bytes/s. A piece of work that does I FLOPs for every byte it reads (its *arithmetic intensity*)
# can therefore run at most at
#
# > attainable FLOP/s = min(P, I x W)
#
# (Williams, Waterman and Patterson, "Roofline: An Insightful Visual Performance Model for Multicore
# Architectures", Communications of the ACM 52(4), 2009). Drawn against I on log-log axes it is a slanted line
# (memory-bound: every extra FLOP per byte adds speed) that meets a flat roof (compute-bound) at the **ridge
# point** I = P / W, lesson 2's ridge point.
#
# **Step time.** The same two limits give the time of one step that does F FLOPs and moves M bytes:
#
# > step time = max(F / P, M / W)
#
# *Assumptions:* arithmetic and memory traffic overlap perfectly (the slower of the two sets the time; with no
# overlap at all it would be their sum, an upper bound); the peak rates are reached (so this is a lower bound:
# real kernels reach a fraction of them); a dense model (every weight used for every token).
#
# **One forward pass, prefill or decode.** A pass of a dense N-parameter model over n tokens, whichever phase
# they belong to, reads every weight once, N x b bytes at b bytes per parameter, and does about 2 FLOPs per
# parameter per token, 2·N·n FLOPs (lesson 2). *Assumptions:* the weights dominate the bytes moved (the KV cache
# and the activations are left out: lesson 5 adds the KV cache), and attention's own FLOPs are left out. Its
# intensity is 2·N·n / (N·b) = **2n / b FLOPs per byte**:
#
# - a prefill of L prompt tokens has n = L: intensity 2L / b, compute-bound once L is a few hundred tokens;
# - a decode step of a batch of B sequences has n = B, one new token each: intensity **2B / b**.
#
# **Where decode turns compute-bound.** Decode's intensity reaches the ridge point when 2B / b = P / W, at
#
# > B = ridge x b / 2
#
# (Austin et al., "How to Scale Your Model", 2025, chapter "All About Transformer Inference", where the same
# bound is worked out for TPUs). Below that batch every step takes the time to read the weights, N x b / W,
# however many sequences share it: extra sequences are almost free. Above it the step time grows with B.
#
# **Prefill stalls decode.** A server with continuous (iteration-level) batching admits a new request between
# two decode steps (Yu et al., "Orca", OSDI 2022). If it runs the whole prefill of an L-token prompt in that
# iteration, together with the B running sequences' decode tokens, the pass has B + L tokens: every running
# sequence waits that long for its next token, an **ITL spike** that a mean TPOT hides and a p99 of the gaps
# shows (lesson 1). **Chunked prefill** (Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference
# with Sarathi-Serve", OSDI 2024) puts at most C prompt tokens into each iteration beside the decode tokens:
# each gap is then the time of a pass of B + C tokens, about one chunk's time, and the prompt takes
# ceil(L / C) iterations instead of one.
#
# ### Worked example: the chapter's replica
#
# Every lesson of this chapter uses one replica: **two NVIDIA H200 SXM GPUs** with tensor parallelism, serving
# a **70B-parameter model in FP8** (N = 70e9, b = 1 byte per weight, 70 GB of weights). NVIDIA's H200 datasheet
# gives each GPU 4.8 TB/s of HBM3e and "3,958 TFLOPS" of FP8 *with sparsity*; dense math, which a dense model
# uses, runs at half of it (NVIDIA, "H200 Tensor Core GPU" datasheet, 2024). The pair: W = 9.6e12 bytes/s and
# P = 3.958e15 FLOP/s of dense FP8.
#
# - Ridge point: 3.958e15 / 9.6e12 ≈ **412 FLOPs per byte** (one GPU's, 1.979e15 / 4.8e12, is the same).
# - Decode, one sequence: intensity 2 / 1 = 2, so the attainable rate is min(3.958e15, 2 x 9.6e12) =
#   **1.92e13 FLOP/s**, about **0.49%** of the peak. A batch of 32: intensity 64, **6.14e14 FLOP/s**, about
#   **15.5%** of the peak.
# - Decode turns compute-bound at B = 412 x 1 / 2 ≈ **206 sequences**.
# - A decode step of B = 32: its 2 x 70e9 x 32 = 4.48e12 FLOPs take **1.13 ms** at the peak, its 70 GB of
#   weights take 70e9 / 9.6e12 = **7.29 ms** to read: the step takes max(1.13, 7.29) = 7.29 ms, memory-bound.
# - The whole 4,000-token prefill in one iteration with the 32 decode tokens: 2 x 70e9 x 4,032 = 5.64e14 FLOPs,
#   **142.6 ms**, compute-bound. Every one of the 32 streams waits 142.6 ms for its next token instead of
#   7.29 ms: a gap about **20 times** the usual one.
# - Chunked, C = 512 tokens: each iteration has 32 + 512 = 544 tokens, 2 x 70e9 x 544 / 3.958e15 =
#   **19.2 ms**; the prompt needs ceil(4,000 / 512) = **8** iterations. With C = 128, 32 + 128 = 160 tokens
#   is still below the 206 of the crossover, so each iteration takes the 7.29 ms weight read and the chunk rides
#   free; but the prompt needs **32** iterations.
#
# | chunk C | iterations for 4,000 tokens | longest gap for the 32 streams | prompt's prefill time |
# |---|---|---|---|
# | 128 | 32 | 7.29 ms | 233 ms |
# | 512 | 8 | 19.2 ms | 151 ms |
# | none (4,000) | 1 | 142.6 ms | 142.6 ms |
#
# (The prefill time is the sum of its iterations' times: each reads the weights again.) Smaller chunks smooth
# the other users' gaps and cost the new prompt's TTFT, which is the trade-off vLLM's documentation describes
# for its token budget per iteration, `max_num_batched_tokens` (vLLM, "Optimization and Tuning": "Smaller
# values ... achieve better inter-token latency ... Higher values achieve better time to first token").
#
# These are lower bounds at the peak rates. At the chapter's assumed rates (28% of the FP8 peak, 73% of the
# bandwidth, lesson 2: assumptions chosen to give round numbers, not measurements) the same formulas give a decode step of about **10 ms** and the unchunked gap about
# **0.51 s**: the numbers of Decode's check-yourself question.
#
# **Common mistakes**
#
# - Adding the two times. With the overlap the roofline assumes, a step takes the *larger* of F / P and M / W,
#   not their sum; the sum is the bound with no overlap at all.
# - Thinking decode's time grows with its FLOPs. Below the crossover batch, with the KV cache left out as this
#   lesson leaves it, a decode step's time is the weight read, the same for 1 sequence as for 100. That holds
#   only while the weights dominate the bytes: each sequence also reads its own KV cache, and at the chapter's
#   4,000-token contexts 100 caches (1.31 GB each) outweigh the 70 GB of weights. Lesson 6 adds them.
# - Using the datasheet's headline FLOP/s as the dense peak: H100 and H200 tables print FP8 *with sparsity*;
#   a dense model gets half. Halving it twice, or not at all, moves the ridge point and the crossover by 2.
# - Treating prefill and decode as different formulas. Both are one pass reading the weights once; only the
#   number of tokens in the pass, n = L or n = B, differs.
# - Counting the chunk but forgetting the decode tokens that share its iteration, or timing the chunk and the
#   decode step as two passes (which reads the weights twice).

# %% [markdown]
# ## Check your understanding
#
# **1.** On the chapter's replica a decode step of 32 sequences takes 7.29 ms (short contexts, the KV cache left
# out). The batch grows to 64 sequences. About how long does a step take now?
#
# - **A.** About 14.6 ms: twice the sequences means twice the FLOPs, and a step's time is proportional to the
#   FLOPs it does.
# - **B.** About 3.6 ms: the weights read once are now shared by twice as many sequences, so each step is
#   half as long.
# - **C.** Still about 7.3 ms: it reads the same 70 GB, and its FLOPs double to 2.3 ms of arithmetic, which the
#   read hides.
# - **D.** About 9.6 ms: the step's 2.3 ms of arithmetic added to its 7.3 ms of reading the weights, since both
#   have to happen.
#
# Set `answer_bigger_batch` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_bigger_batch"
### STUB answer_bigger_batch = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_bigger_batch = "C"  # 64 is far below the crossover of 206: the weight read sets the time
### END SOLUTION

# %% [markdown]
# ## Part 1: by hand
#
# A different chip and model from the worked example. One **{gpu}** serves a model with
# N = {params_b}e9 parameters in FP8 (1 byte per parameter, {params_b} GB of weights, which fit in its 80 GB). The
# H100 datasheet lists "{fp8_quote}" for the {gpu_short}, marked *with sparsity*, and a memory bandwidth
# of {bandwidth_text} (NVIDIA, "H100 Tensor Core GPU" datasheet). Use the roofline at these peak rates, with the
# lesson's assumptions (perfect overlap, the weights dominate the bytes, attention and the KV cache left out).
# You may type a number or an arithmetic expression.
#
# - `crossover_h100`: at what decode batch size does a step of this FP8 model on the {gpu_short} turn
#   compute-bound? Give the batch at which decode's intensity equals the ridge point (the crossover itself,
#   not the first whole batch above it); you may round it to the nearest whole number.
# - `spike_ms`: the server is decoding a batch of {batch} sequences when a {prompt_text}-token prompt arrives, and
#   it runs the whole prefill in one iteration together with the {batch} decode tokens (one forward pass). How
#   many **milliseconds** does that pass take, the gap the {batch} sequences see? You may round to 3 significant
#   figures.
# - `chunk_ms`: the server chunks the prefill instead, {chunk} prompt tokens per iteration beside the {batch}
#   decode tokens. How many **milliseconds** does one such iteration take? You may round to 3 significant figures.

# %% question="crossover_h100"
### STUB crossover_h100 = None  # your answer, a batch size
### BEGIN SOLUTION
crossover_h100 = {sparse_tflops}e12 / 2 / ({tb_per_s} * 1e12) * 1 / 2  # the ridge (dense FP8 is half) x b / 2
### END SOLUTION

# %% question="spike_ms"
### STUB spike_ms = None  # your answer, in milliseconds
### BEGIN SOLUTION
flops_s = 2 * {params_b}e9 * ({batch} + {prompt_len}) / ({sparse_tflops}e12 / 2)  # the pass's FLOPs time
spike_ms = max(flops_s, {params_b}e9 * 1 / ({tb_per_s} * 1e12)) * 1000  # or its weight read
### END SOLUTION

# %% question="chunk_ms"
### STUB chunk_ms = None  # your answer, in milliseconds
### BEGIN SOLUTION
flops_s = 2 * {params_b}e9 * ({batch} + {chunk}) / ({sparse_tflops}e12 / 2)  # one chunk and the decode tokens
chunk_ms = max(flops_s, {params_b}e9 * 1 / ({tb_per_s} * 1e12)) * 1000
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the roofline into functions. Parameters are counted one by one (70e9, not 70), sizes are in bytes,
# rates in FLOP/s and bytes per second, and times in seconds, so no unit conversion is needed inside the
# functions. `peak_flops` is always the dense peak (already halved if a datasheet marked it with sparsity).
# Where a docstring says to call another function, call it by its name rather than repeating its formula.
# Stuck? Try `hint("forward_seconds")`.

# %% question="attainable_flops"
def attainable_flops(intensity, peak_flops, bandwidth):
    """The roofline: the most FLOP/s a chip can sustain on work of this arithmetic intensity.

    intensity: FLOPs done per byte moved. peak_flops: dense peak, in FLOP/s. bandwidth: bytes per second.
    Memory can feed at most intensity * bandwidth FLOP/s, and the arithmetic units do at most peak_flops.
    Returns min(peak_flops, intensity * bandwidth), in FLOP/s.

    Example: attainable_flops(2, 3.958e15, 9.6e12) -> 1.92e13
    """
    ### BEGIN SOLUTION
    return min(peak_flops, intensity * bandwidth)
    ### END SOLUTION


# %% question="step_seconds"
def step_seconds(flops, bytes_moved, peak_flops, bandwidth):
    """Seconds for one step that does `flops` FLOPs and moves `bytes_moved` bytes, by the roofline.

    Assumes arithmetic and memory traffic overlap perfectly, so the slower of the two sets the time:
    returns max(flops / peak_flops, bytes_moved / bandwidth), in seconds. Either count may be 0.

    Example: step_seconds(4.48e12, 70e9, 3.958e15, 9.6e12) -> 0.00729166...
    """
    ### BEGIN SOLUTION
    return max(flops / peak_flops, bytes_moved / bandwidth)
    ### END SOLUTION


# %% question="decode_intensity"
def decode_intensity(batch, bytes_per_param):
    """Arithmetic intensity of one decode step of `batch` sequences: FLOPs per byte of weights read.

    The step reads every weight once and uses it for one new token of each sequence: 2 FLOPs per parameter per
    sequence, over bytes_per_param bytes per parameter (FP8: 1, BF16: 2, 4-bit: 0.5). batch is a whole number
    >= 1. The KV cache and the activations are left out. Returns 2 * batch / bytes_per_param.

    Example: decode_intensity(32, 1) -> 64.0
    """
    ### BEGIN SOLUTION
    return 2 * batch / bytes_per_param
    ### END SOLUTION


# %% question="crossover_batch"
def crossover_batch(peak_flops, bandwidth, bytes_per_param):
    """The decode batch at which decode_intensity(batch, bytes_per_param) equals the ridge point.

    The ridge point is peak_flops / bandwidth FLOPs per byte; decode's intensity is 2 * batch / bytes_per_param.
    Returns the batch where they are equal, peak_flops / bandwidth * bytes_per_param / 2, as a float (not
    rounded): below it decode is memory-bound, above it compute-bound.

    Example: crossover_batch(3.958e15, 9.6e12, 1) -> 206.14583...
    """
    ### BEGIN SOLUTION
    return peak_flops / bandwidth * bytes_per_param / 2
    ### END SOLUTION


# %% question="forward_seconds"
def forward_seconds(n_params, bytes_per_param, n_tokens, peak_flops, bandwidth):
    """Seconds for one forward pass of a dense model over n_tokens tokens, by the roofline.

    The pass may be a prefill (n_tokens prompt tokens), a decode step (one token per sequence) or both at once.
    It does 2 * n_params * n_tokens FLOPs and reads every weight once, n_params * bytes_per_param bytes (the KV
    cache, the activations and attention's own FLOPs are left out). n_tokens is a whole number >= 1.
    Returns step_seconds(2 * n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth).
    Call step_seconds (repeating its formula is right too).

    Example: forward_seconds(70e9, 1, 4000, 3.958e15, 9.6e12) -> 0.14148...
    """
    ### BEGIN SOLUTION
    return step_seconds(2 * n_params * n_tokens, n_params * bytes_per_param, peak_flops, bandwidth)
    ### END SOLUTION


# %% question="itl_during_prefill"
def itl_during_prefill(n_params, bytes_per_param, batch, prefill_tokens, chunk_tokens, peak_flops, bandwidth):
    """The longest gap between two tokens of a decoding sequence while a new prompt is prefilled beside it.

    `batch` sequences are decoding (one token each per iteration) when a prompt of prefill_tokens tokens
    arrives. Each iteration is one forward pass with the batch's decode tokens and at most chunk_tokens of the
    prompt (chunk_tokens >= prefill_tokens: the whole prompt in one iteration, no chunking). The longest gap is
    that of an iteration with a full chunk, min(chunk_tokens, prefill_tokens) prompt tokens:
    returns forward_seconds(n_params, bytes_per_param, batch + min(chunk_tokens, prefill_tokens), peak_flops,
    bandwidth). All counts are whole numbers >= 1. Call forward_seconds (repeating its formula is right too).

    Example: itl_during_prefill(70e9, 1, 32, 4000, 512, 3.958e15, 9.6e12) -> 0.01924...
    """
    ### BEGIN SOLUTION
    prompt_in_pass = min(chunk_tokens, prefill_tokens)
    return forward_seconds(n_params, bytes_per_param, batch + prompt_in_pass, peak_flops, bandwidth)
    ### END SOLUTION


# %% question="prefill_iterations"
def prefill_iterations(prefill_tokens, chunk_tokens):
    """How many iterations a prompt of prefill_tokens tokens takes in chunks of at most chunk_tokens.

    Every iteration but perhaps the last carries a full chunk; the last carries what is left. Both arguments
    are whole numbers >= 1. Returns the whole number ceil(prefill_tokens / chunk_tokens), as an int.

    Example: prefill_iterations(4000, 512) -> 8
    """
    ### BEGIN SOLUTION
    return -(-prefill_tokens // chunk_tokens)  # ceiling division, exact for any size of int
    ### END SOLUTION


# %% [markdown]
# ### See it: the replica's roofline
#
# The next cell (tagged `self-check`; its code is folded away) draws the chapter's replica's roofline with
# **your** `attainable_flops`, and places on it, with **your** `decode_intensity` and `crossover_batch`, decode at
# batch 1, 32 and the crossover, and the worked example's passes of 32 decode tokens with a 128-token chunk, a
# 512-token chunk and the whole 4,000-token prompt (a pass of n tokens has the intensity of a batch of n). If your
# functions give values no roofline could, it says what looks wrong instead of drawing; without matplotlib it
# prints the same points as a table.

# %% tags=["self-check"] jupyter={"source_hidden": true}
def _roofline_problem(peak, bandwidth, bytes_per_param, intensities):
    """Why your functions would draw a nonsense roofline, in a sentence; None if they look plausible."""
    import math
    import numbers

    def real(x):
        return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)

    for name, call in (
        ("attainable_flops", lambda: [attainable_flops(i, peak, bandwidth) for i in intensities]),
        ("decode_intensity", lambda: decode_intensity(32, bytes_per_param)),
        ("crossover_batch", lambda: crossover_batch(peak, bandwidth, bytes_per_param)),
    ):
        try:
            got = call()
        except NotImplementedError:
            return f"Fill in {name} in Part 2 and run this cell again to see the roofline."
        except Exception as err:
            return f"No plot yet: your {name} raised {type(err).__name__}: {err}. check(\"{name}\") says more."
        values = got if isinstance(got, list) else [got]
        if not all(real(v) and v > 0 for v in values):
            return f"No plot yet: your {name} returned {got!r}, not a positive number. check(\"{name}\") says more."
    rates = [attainable_flops(i, peak, bandwidth) for i in intensities]
    if any(r > peak * (1 + 1e-9) for r in rates):
        return ("No plot yet: your attainable_flops goes above the peak, which is the roof no work can pass. "
                'check("attainable_flops") says more.')
    if any(b < a * (1 - 1e-9) for a, b in zip(rates, rates[1:])):
        return ("No plot yet: with your attainable_flops more FLOPs per byte gives fewer FLOP/s; the roofline "
                'never goes down. check("attainable_flops") says more.')
    return None


def _plot_roofline():
    """Draw the replica's roofline with your functions, or print it as a table, or say kindly why not (yet)."""
    peak, bandwidth, b = 3.958e15, 9.6e12, 1  # two H200 SXM, dense FP8 (NVIDIA H200 datasheet)
    grid = [10 ** (k / 20) for k in range(-20, 101)]  # 0.1 to 100,000 FLOPs per byte
    problem = _roofline_problem(peak, bandwidth, b, grid)
    if problem:
        print(problem)
        return
    crossover = crossover_batch(peak, bandwidth, b)
    points = [
        ("decode, batch 1", decode_intensity(1, b)),
        ("decode, batch 32", decode_intensity(32, b)),
        (f"decode, batch {crossover:.0f} (crossover)", decode_intensity(crossover, b)),
        ("32 decode + 128-token chunk", decode_intensity(32 + 128, b)),
        ("32 decode + 512-token chunk", decode_intensity(32 + 512, b)),
        ("32 decode + whole 4,000-token prompt", decode_intensity(32 + 4000, b)),
    ]
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        print("Two H200 SXM, FP8 (no matplotlib here, so a table):")
        print(f"{'work':<38} {'FLOPs/byte':>10} {'attainable FLOP/s':>18} {'of peak':>8}  bound")
        for label, intensity in points:
            rate = attainable_flops(intensity, peak, bandwidth)
            ridge = peak / bandwidth
            bound = "both" if abs(intensity / ridge - 1) < 1e-9 else "compute" if intensity > ridge else "memory"
            print(f"{label:<38} {intensity:>10.4g} {rate:>18.3g} {rate / peak:>8.1%}  {bound}")
        return
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.loglog(grid, [attainable_flops(i, peak, bandwidth) for i in grid], color="black", label="attainable FLOP/s")
    ax.axvline(peak / bandwidth, color="grey", linestyle=":", label=f"ridge point, {peak / bandwidth:.0f} FLOPs/byte")
    for label, intensity in points:
        ax.plot([intensity], [attainable_flops(intensity, peak, bandwidth)], "o", label=label)
    ax.set_xlabel("arithmetic intensity (FLOPs per byte of weights read)")
    ax.set_ylabel("attainable FLOP/s")
    ax.set_title("Roofline of two H200 SXM (FP8 dense): decode sits on the slope, prefill on the roof")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    plt.show()


_plot_roofline()

# %% [markdown]
# ## Check yourself
#
# **2.** To make the gaps as smooth as possible, a team sets the replica's chunk size to 64 tokens instead of 128
# (a batch of 32, a 4,000-token prompt). What do they get?
#
# - **A.** No shorter gaps: passes of 96 and 160 tokens are both below the crossover, so each is the 7.29 ms
#   weight read; but 63 iterations, not 32, so a longer TTFT.
# - **B.** Gaps about half as long, since each iteration carries half as many prompt tokens, and the same TTFT,
#   since the prompt's total FLOPs, 2·N·L, do not change with the chunk size.
# - **C.** Shorter gaps and a shorter TTFT, because smaller chunks fit in the GPU's caches, so each one is read
#   from memory faster than a larger chunk.
# - **D.** Longer gaps, since a chunk below the ridge point is memory-bound and takes longer than a chunk that
#   keeps the arithmetic busy, and the same TTFT.
#
# Set `answer_small_chunks` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_small_chunks"
### STUB answer_small_chunks = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_small_chunks = "A"  # below the crossover every iteration costs one weight read; more chunks, more reads
### END SOLUTION

# %% [markdown]
# **3.** The replica first served the 70B model in BF16: 2 bytes per weight, and BF16 math at 989.5 dense
# TFLOP/s per GPU (half the H200 datasheet's "1,979 TFLOPS", which is with sparsity), 1,979 for the pair. It
# decoded a batch of 150, memory-bound. It now serves the same model in FP8, with FP8 math. Is a batch of 150
# still memory-bound?
#
# - **A.** No: FP8 halves the bytes per weight, so decode's intensity 2B / b doubles to 300 FLOPs per byte for
#   150 sequences, above the BF16 ridge point of 206.
# - **B.** Yes, with the same crossover of about 206: the intensity and the ridge point both double; each step
#   takes about half as long.
# - **C.** Yes, and each step takes as long as before: FP8 only speeds up the arithmetic, while the weights take
#   the same bytes in memory as they did in BF16.
# - **D.** No: the H200's FP8 peak is lower than its BF16 peak once the sparsity is halved, so the ridge point
#   falls below the 300 FLOPs per byte of this batch.
#
# Set `answer_fp8_crossover` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_fp8_crossover"
### STUB answer_fp8_crossover = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_fp8_crossover = "B"  # b halves and the peak doubles: ridge x b / 2 is unchanged; the bytes halve
### END SOLUTION

# %% [markdown]
# ## Going further
#
# - **Where the crossover really is.** The KV cache, left out above, adds bytes that grow with the batch: every
#   sequence brings its own cache, read in full at every step (lesson 3's `kv_step_seconds`), so decode's real
#   intensity stays lower and memory for the cache usually runs out before B reaches the crossover (lessons 5
#   and 6). Real kernels also overlap arithmetic and memory imperfectly, so the corner of the roofline is
#   rounded.
# - **FP8 weights, BF16 math.** Some kernels store weights in FP8 but compute in BF16: the bytes halve while
#   the ridge point stays BF16's, so decode crosses over at half the batch (about 103 on the replica).
# - **Disaggregated prefill.** Another answer to the interference is to run prefill and decode on different
#   GPUs and ship the KV cache between them (Zhong et al., "DistServe", OSDI 2024; Patel et al., "Splitwise",
#   ISCA 2024): no decode step ever waits for a prefill, at the cost of moving each prompt's KV cache.
#
# ## Takeaway
#
# One formula times both phases: a pass of n tokens does 2·N·n FLOPs, reads the weights once, and takes
# max(FLOPs / peak, bytes / bandwidth). Decode, with n = B, sits on the memory slope until B nears
# ridge x b / 2 (about 206 on the replica), so its steps cost the weight read whatever the batch; prefill, with
# n = L in the thousands, sits on the compute roof. Put in the same iteration, a long prefill stretches every
# decoding user's next gap to the prefill's time; chunked prefill caps that gap at one chunk's pass, at the cost
# of more iterations for the new prompt.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
