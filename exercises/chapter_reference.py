# %% [markdown]
# ## Chapter reference: prefill and decode
#
# This section belongs to the whole chapter (*trace a generation request through prefill and decode and
# distinguish latency, throughput and hardware bottlenecks*), so it is the same on every lesson in it: the
# notation and formulas of all six lessons, the chapter's worked example with its reference code, and the
# chapter's common mistakes. Nothing in it is graded.
#
# ### Notation
#
# | Symbol | Meaning | Unit |
# |---|---|---|
# | N | parameters of a dense model (70e9 for a 70B model) | count |
# | b | bytes per weight (FP8 1, BF16 2) | bytes |
# | L | prompt length | tokens |
# | n_out | output tokens of one request | tokens |
# | B | batch: sequences decoding together | count |
# | TTFT | time to first token: send to first output token (queue, prefill, network) | s |
# | ITL | inter-token latency: the gap between two output tokens, one decode step | s |
# | TPOT | time per output token: (T - TTFT) / (n_out - 1), one request's average gap | s |
# | T | end-to-end latency: send to last token | s |
# | peak | the accelerator's dense peak arithmetic rate | FLOP/s |
# | bandwidth | the accelerator's memory bandwidth | bytes/s |
# | u | utilisation: the fraction of the dense peak a pass achieves (model FLOP utilisation) | 0 to 1 |
#
# Units are decimal: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s, 1 ms = 1e-3 s; a GiB
# (2^30 bytes) is called a GiB.
#
# ### The formulas, lesson by lesson
#
# 1. *A request, end to end.* T = TTFT + (n_out - 1) x TPOT exactly, and T ≈ TTFT + (n_out - 1) x ITL when the
#    gaps are steady. Three tokens per second: the steady decode rate 1 / ITL, a request's output rate
#    n_out / T, and a fleet's aggregate rate, the sum of the rates of the requests served at once. Percentiles
#    by linear interpolation (numpy's default): rank h = (n - 1) x p / 100 over the sorted samples, from 0.
# 2. *Prefill.* FLOPs ≈ 2·N·L for a dense model, attention's L^2 term left out (Kaplan et al., "Scaling Laws
#    for Neural Language Models", 2020, §2.1); arithmetic intensity ≈ 2L / b FLOPs per byte of weights;
#    TTFT ≈ 2·N·L / (peak x u) when compute-bound, queue and network left out.
# 3. *Decode.* One step reads every weight once: time per token >= N·b / bandwidth; with the KV cache of a
#    context of c positions, `kv_step_seconds` = (N·b + KV bytes per token x c) / bandwidth. One stream's
#    intensity is about 2 / b FLOPs per byte.
# 4. *Prefill vs decode on one accelerator.* The ridge point is peak / bandwidth (Williams, Waterman and
#    Patterson, "Roofline", Communications of the ACM, 2009); attainable FLOP/s = min(peak, intensity x
#    bandwidth) and step time = max(FLOPs / peak, bytes / bandwidth). Decode at batch B has intensity
#    ≈ 2B / b and turns compute-bound near B ≈ ridge x b / 2.
# 5. *The KV cache.* Bytes per token = 2 (K and V) x layers x KV heads x head dim x bytes per value; only the
#    KV heads are stored (grouped-query attention), and every decode step reads the whole cache again.
# 6. *Batching and throughput.* A memory-bound step at batch B reads the weights once plus every sequence's
#    KV cache; the fleet's rate is B / step time while each user's ITL is the step time; Little's law: requests
#    in flight = arrival rate x time in the system (J. D. C. Little, Operations Research, 1961).
#
# ### Worked example: the chapter's replica
#
# Every lesson uses one replica: two NVIDIA H200 SXM GPUs with tensor parallelism, each with 141 GB of HBM3e
# at 4.8 TB/s and 1,979 TFLOP/s of dense FP8 (the datasheet's "3,958 TFLOPS" is *with sparsity*; dense math
# gets half: NVIDIA, "H200 Tensor Core GPU" datasheet, 2024). It serves a 70B-parameter model in FP8, shaped
# as Llama-3-70B: 80 layers, 8 KV heads of 64 query heads (Meta, "The Llama 3 Herd of Models", 2024, Table 3),
# head dimension 128 (its `config.json`, 8192 / 64), its KV cache in BF16. The pair has 282 GB, 9.6 TB/s and 3.958e15 FLOP/s.
#
# - Weights: 70e9 x 1 byte = 70 GB, leaving 212 GB of the 282 GB for the KV cache at most: activations and
#   the serving engine's own reserve take some of it (lesson 5 works out the budget a server really has).
# - Ridge point: 1.979e15 / 4.8e12 ≈ 412 FLOPs per byte per GPU, the same for the pair.
# - Prefill of a 4,000-token prompt: 2 x 70e9 x 4,000 = 5.6e14 FLOPs at an intensity of 2 x 4,000 / 1 =
#   8,000 FLOPs per byte, far above the ridge: compute-bound. At the full dense peak it would take
#   5.6e14 / 3.958e15 ≈ 0.141 s; the chapter assumes 28% utilisation (an assumption chosen to give about 0.5 s,
#   not a measurement; attention and the two GPUs' all-reduce are left out), so TTFT ≈ 0.51 s, "about 0.5 s".
# - Decode: each step reads the 70 GB, at least 70e9 / 9.6e12 ≈ 7.3 ms; at about 73% of the peak bandwidth
#   (about 7 TB/s: the chapter's assumption, chosen to give 10 ms) about 10 ms per token, about 100 tokens/s
#   for one stream. Its intensity, 2 / 1 =
#   2 FLOPs per byte, is far below the ridge: memory-bound. A decode batch would turn compute-bound near
#   412 x 1 / 2 ≈ 206 sequences.
# - KV cache: 2 x 80 x 8 x 128 x 2 = 327,680 bytes per token, so 4,000 positions hold about 1.31 GB, and a
#   decode step at that context reads 70 GB + 1.31 GB: at least 7.4 ms.
# - One request with that prompt and a 500-token reply, at about 0.5 s and 10 ms: T ≈ 0.5 + 499 x 0.010 =
#   5.49 s, an output rate of 500 / 5.49 ≈ 91.1 tokens/s against a steady rate of 100 tokens/s.
#
# The reference code below (a `self-check` cell: the grader never runs it) computes each of these numbers from
# the datasheet figures, so you can change one and see what follows.

# %% tags=["self-check"]
def _chapter_replica(gpus=2, hbm_gb=141, tb_per_s=4.8, fp8_dense_tflops=1979, params=70e9,
                     bytes_per_weight=1, prompt=4000, utilisation=0.28, achieved=0.73, reply=500):
    """The chapter's worked example, every number computed from the datasheet figures and the model's shape."""
    peak = gpus * fp8_dense_tflops * 1e12  # FLOP/s, dense: half the datasheet's sparse headline
    bandwidth = gpus * tb_per_s * 1e12  # bytes/s
    weights = params * bytes_per_weight  # bytes
    ridge = peak / bandwidth  # FLOPs per byte
    flops = 2 * params * prompt
    itl = weights / (bandwidth * achieved)  # s, at the achieved share of the peak bandwidth
    kv_per_token = 2 * 80 * 8 * 128 * 2  # K and V x layers x KV heads x head dim x 2 bytes (BF16)
    kv_prompt = kv_per_token * prompt  # bytes
    step_kv = (weights + kv_prompt) / bandwidth  # s, a decode step at the prompt's context
    latency = 0.5 + (reply - 1) * 0.010  # s, with the rounded TTFT and ITL
    rows = [
        ("weights", "params x bytes per weight", f"{weights / 1e9:.0f} GB"),
        ("memory left for the KV cache", "gpus x HBM - weights", f"{gpus * hbm_gb - weights / 1e9:.0f} GB"),
        ("ridge point", "peak / bandwidth", f"{ridge:.0f} FLOPs/byte"),
        ("prefill FLOPs", "2 x params x prompt", f"{flops:.2g} FLOPs"),
        ("prefill intensity", "2 x prompt / bytes per weight", f"{2 * prompt / bytes_per_weight:.0f} FLOPs/byte"),
        ("TTFT at the full peak", "FLOPs / peak", f"{flops / peak:.3f} s"),
        ("TTFT at the utilisation", "FLOPs / (peak x utilisation)", f"{flops / (peak * utilisation):.2f} s"),
        ("decode step, at least", "weights / bandwidth", f"{weights / bandwidth * 1e3:.1f} ms"),
        ("decode step, achieved", "weights / (bandwidth x achieved)", f"{itl * 1e3:.1f} ms"),
        ("one stream's steady rate", "1 / ITL", f"{1 / itl:.0f} tokens/s"),
        ("compute-bound decode batch", "ridge x bytes per weight / 2", f"{ridge * bytes_per_weight / 2:.0f}"),
        ("KV cache per token", "2 x layers x KV heads x head dim x 2", f"{kv_per_token:,} bytes"),
        ("KV cache of the prompt", "per token x prompt", f"{kv_prompt / 1e9:.2f} GB"),
        ("decode step at that context", "(weights + KV) / bandwidth", f"{step_kv * 1e3:.1f} ms"),
        ("request latency (0.5 s, 10 ms)", "TTFT + (reply - 1) x ITL", f"{latency:.2f} s"),
        ("request output rate", "reply / T", f"{reply / latency:.1f} tokens/s"),
    ]
    width = [max(len(row[i]) for row in rows) for i in range(2)]
    for name, formula, value in rows:
        print(f"{name:<{width[0]}}  {formula:<{width[1]}}  {value}")


_chapter_replica()

# %% [markdown]
# ### The chapter's common mistakes
#
# - Predicting one chat's speed from peak FLOP/s. A single decode stream is limited by bytes per second (the
#   weights, then the KV cache, read for every token), not by arithmetic.
# - Using the datasheet's headline FLOP/s as is. H100 and H200 tables print FP8 and BF16 rates *with sparsity*;
#   a dense model gets half, and a doubled peak doubles the ridge point and halves every TTFT estimate.
# - Calling prefill compute-bound and decode memory-bound because of the phase's name. The bottleneck depends
#   on the batch and the shapes: compare the FLOPs per byte with the ridge point. A large decode batch can
#   become compute-bound, and a short prompt's prefill can be memory-bound.
# - Counting n_out gaps instead of n_out - 1. The first token ends the TTFT; only the later ones cost an ITL.
# - Comparing engines by a number before comparing its definition. "Tokens/s" may be a steady decode rate, a
#   request's output rate or a fleet's total throughput; compare like with like.
# - Judging latency by its average. An average hides the tail: the slowest requests (long prompts, long
#   replies, a busy batch) are what some users wait for, so look at percentiles such as p50 and p99 too, and
#   say which percentile method.
# - Sizing the KV cache with the query heads, with K or V only, or in GiB where GB is meant. Only the KV heads
#   are stored, both K and V, and 1 GB = 1e9 bytes.
# - Expecting batching to speed up one user. A batch shares one read of the weights per step, so the fleet's
#   total rises while each stream still gains one token per step, and each step grows with every sequence's
#   KV cache.
