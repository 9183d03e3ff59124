# %% [markdown]
# # Batching and throughput
#
# One replica rarely serves one user. In this lesson you will see what happens to a decode step when many
# sequences share it: the replica's total tokens per second rise while every user's inter-token latency (ITL)
# grows. You will find the largest batch that still meets an ITL target, use Little's law to say how many
# requests a replica must hold at once, and see why a busy replica's memory-bandwidth gauge says little about
# how fast one user's reply streams.

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell, the plot and `check_all()`)
#   are not run by the grader. **Cells marked self-check are only for you; put your answers in the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("max_batch_for_itl")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6, except
#   where a question says you may round. A batch is a whole number of sequences.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 ms = 1e-3 s. Where a GiB
#   (2^30 bytes) is meant, the text says GiB.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("batching", globals())

# %% [markdown]
# ## Predict first
#
# With one user, the chapter's replica (below) writes at best a token about every 7.4 ms: each decode step reads
# all 70 GB of weights (7.29 ms at the replica's 9.6 TB/s, lesson *Decode*) and that user's 4,000-token KV cache
# (1.31 GB more: 7.43 ms in all). Now 64 users share it, each with a 4,000-token conversation. Before you
# read on, write down a guess:
#
# 1. Each user's ITL: still about 7.4 ms, 64 times longer, or something in between?
# 2. The replica's total output: the same tokens per second, 64 times more, or something in between?
#
# Keep your guesses; the next section lets you check them.

# %% [markdown]
# ## The idea
#
# **Batching.** A decode step moves every sequence it holds forward by one token. If B sequences decode
# together, one step reads each weight once and uses it for all B of them. The question is which sequences
# share a step. *Static* (request-level) batching starts a batch of requests together and admits new ones only
# when the whole batch has finished, so a short reply's slot sits idle until the longest reply ends.
# *Continuous* batching decides the batch again at every step (*iteration-level scheduling*: Yu et al.,
# "Orca: A Distributed Serving System for Transformer-Based Generative Models", OSDI 2022): a finished
# sequence leaves, and a waiting request joins at the next step, so the batch stays full. vLLM pairs it with
# PagedAttention, which stores each sequence's KV cache in small blocks so that sequences of any length pack
# memory tightly (Kwon et al., "Efficient Memory Management for Large Language Model Serving with
# PagedAttention", SOSP 2023). Either way, the model below is the time of one step.
#
# **What a batched step reads.** The weights are shared; the KV caches are not: every sequence attends to its
# own earlier positions, so the step reads each sequence's cache as well. With W bytes of weights, k bytes of
# KV cache per token and every sequence at a context of C tokens,
#
# > step time = (W + B x C x k) / bandwidth
#
# (the same floor as Austin et al., "How to Scale Your Model", 2025, chapter "All About Transformer Inference",
# which writes the minimum step time as the batch's KV bytes plus the parameter bytes, over the total memory
# bandwidth). At B = 1 this is lesson *Decode*'s
# `kv_step_seconds`. *Assumptions:* the step is **memory-bound**, below the ridge point: its FLOPs per byte
# read, at most 2B / b for the weights' matrix multiplications (b bytes per weight), stay below the chip's
# ridge point, so the arithmetic hides under the memory reads (lesson *Prefill vs decode on one accelerator*
# works out where that stops); every sequence is at the same context C (if they differ, the step reads their
# total, B times their **mean** context); the bandwidth is the peak, so this is a floor (a replica that achieves
# 73% of the peak takes 1 / 0.73 times as long); no prefill shares the step; communication is left out.
#
# **Two rates from one step.** Every sequence gains one token per step, so **each user's ITL is the step time**,
# and the replica's total, the *fleet* rate of lesson *A request, end to end*, is
#
# > fleet tokens/s = B / step time
#
# Adding a sequence adds its KV cache to every step: the fleet rate rises with B, but by less and less, and
# every user's ITL grows.
#
# **The largest batch for an ITL target.** A service promises users an ITL of at most t. The step meets it while
# W + B x C x k <= t x bandwidth, so the largest batch is
#
# > B_max = floor((t x bandwidth - W) / (C x k))
#
# rounded **down** (a batch one larger takes longer than t), and **0** when even one sequence misses t
# (when t x bandwidth < W + C x k: no batch size helps then; a faster replica does).
#
# **Little's law.** In any system that is stable over time, the average number of requests inside it equals
# their arrival rate times the average time each spends there (Little, "A Proof for the Queuing Formula:
# L = λW", Operations Research 9(3), 1961):
#
# > requests in flight = arrival rate x latency
#
# *Assumptions:* long-run averages of a stationary system; the latency counts the whole time inside
# (queueing too), and the requests in flight count queued and running ones. A replica that can hold only
# B_max sequences keeps up only while arrival rate x latency stays below B_max; above it, the queue grows
# without end.
#
# ### Worked example: the chapter's replica
#
# Every lesson of this chapter uses one replica: **two NVIDIA H200 SXM GPUs** with tensor parallelism, each with
# 141 GB of HBM3e at 4.8 TB/s (NVIDIA, "H200 Tensor Core GPU" datasheet, 2024), 9.6 TB/s for the pair, serving
# a **70B-parameter model in FP8** (W = 70e9 bytes). Its shape is Llama-3-70B's: 80 layers, 8 KV heads (of 64
# query heads; Meta, "The Llama 3 Herd of Models", 2024, Table 3), head dimension 128 (the model's `config.json`,
# 8192 / 64). With the cache in BF16,
# k = 2 x 80 x 8 x 128 x 2 = 327,680 bytes per token, so a 4,000-token sequence holds **1.31 GB** of cache
# (lesson *The KV cache* works this out). Every sequence is at C = 4,000 tokens.
#
# - B = 1: (70e9 + 1.31e9) / 9.6e12 = **7.43 ms** per step: ITL 7.43 ms, **134.6 tokens/s** in all.
# - B = 64: (70e9 + 64 x 1.31e9) / 9.6e12 = 153.9e9 / 9.6e12 = **16.03 ms**: each user's ITL more than
#   doubles, and the replica writes 64 / 0.01603 = **3,993 tokens/s**, about 30 times the single stream's.
# - Memory-bound? At B = 64 the weights' arithmetic is 2 x 70e9 x 64 FLOPs per 153.9 GB read, about 58 FLOPs per
#   byte, far below the H200's FP8 ridge point of 412 (lesson *Prefill*). Memory holds the batch too:
#   with lesson 5's 10% of the memory kept for activations and the framework, 2 x 141 x 0.9 - 70 = 183.8 GB is
#   left for the caches, room for 140 sequences of 1.31 GB.
# - An ITL target of **20 ms**: (0.020 x 9.6e12 - 70e9) / 1.31e9 = 93.08, so B_max = **93** (93 sequences take
#   19.99 ms a step, 94 take 20.13 ms), and the fleet rate there is **4,652 tokens/s**. A target of **7 ms**:
#   0.007 x 9.6e12 = 67.2e9 bytes, less than the 70 GB of weights alone, so B_max = **0**: one user already
#   waits 7.3 ms a token for the weights, whatever the batch.
# - Little's law: at the 20 ms target, a request with a 0.5 s TTFT and 500 output tokens takes about
#   0.5 + 499 x 0.020 = **10.48 s**. At 8 requests per second, 8 x 10.48 = **83.84** are in flight on average:
#   fewer than 93, so the replica keeps up. It can sustain at most 93 / 10.48 = **8.87 requests per second**.
#
# **Why a busy replica's bandwidth gauge says little about one user.** In the memory-bound regime every step
# streams bytes as fast as the memory allows, with one user or with 64. The one-user step reads 71.3 GB for one
# token; the 64-user step reads 153.9 GB for 64 tokens. A gauge of bytes per second reads the same for both, and
# the single user sits at the memory-bound floor, 70e9 / 9.6e12 = 7.3 ms a token, which no batch size can
# lower. What batching changes is how many tokens each byte read yields, and so how busy the arithmetic is: the
# model FLOP utilisation is 2 x 70e9 / 7.43 ms / 3.958e15 = **0.48%** at B = 1 and **14.1%** at B = 64.
#
# **Common mistakes**
#
# - Expecting batching to leave the ITL unchanged (lesson *Decode*'s first model ignored the caches): every
#   sequence's KV cache is read at every step, so each added sequence lengthens the step.
# - Reading the weights once per sequence, B x (W + C x k): the weights are shared by the whole batch.
# - Rounding B_max to the nearest whole number, or up: a batch of 93.08 does not exist, and 94 misses the
#   target. Round down.
# - Returning 1 (or a negative number) when even one sequence misses the target: no batch meets it, so B_max is 0.
# - Little's law upside down (arrival rate / latency), or with the latency in ms and the rate per second.

# %% [markdown]
# ## Check your understanding
#
# **1.** The replica decodes 32 sequences, each at a context of 4,000 tokens, and the batch doubles to 64. What
# happens to the replica's total tokens/s and to each user's ITL?
#
# - **A.** The total doubles and each ITL stays the same: a step reads the weights once however many sequences
#   share it, so 64 tokens take no longer than 32.
# - **B.** The total stays the same and each ITL doubles: the memory bandwidth is split between twice as many
#   users, so each of them gets half of it.
# - **C.** The total rises, by less than 2 times, and each ITL grows: the weights are still read once, but every
#   added sequence's cache is read too.
# - **D.** Both stay the same: with 32 sequences the replica already used all of its memory bandwidth, so more
#   sequences in the batch cannot change either number.
#
# Set `answer_double_batch` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_double_batch"
### STUB answer_double_batch = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_double_batch = "C"  # 2,744 -> 3,993 tokens/s (x 1.45) while the step grows from 11.7 to 16.0 ms
### END SOLUTION

# %% [markdown]
# ## Part 1: by hand
#
# A different model and chip from the worked example (the worked example above will not give these answers). A
# model with {params_b}e9 parameters ({model}) is stored in FP8 (1 byte per parameter) on **one** {gpu}, whose
# memory bandwidth is {tb_per_s} TB/s ({datasheet}). Its shape is {model}'s: {n_layers} layers, {n_kv_heads} KV
# heads (of {n_heads} query heads), head dimension {head_dim} ({card}), with the KV cache in BF16 (2 bytes per
# value). Every sequence is at a context of {context_text} tokens, and every step is memory-bound at the peak
# bandwidth. You may type a number or an arithmetic expression.
#
# - `step_ms`: how many **milliseconds** does one decode step take at a batch of {batch}? You may round to 3
#   significant figures.
# - `fleet_rate`: how many tokens per second does the replica write in all at that batch? You may round to 3
#   significant figures.
# - `max_batch`: the largest batch whose step meets an ITL target of 10 ms (a whole number of sequences).
# - `requests_in_flight`: requests arrive at {rate} per second and each spends {latency} s in the system on
#   average. How many are in flight, on average?

# %% question="step_ms"
### STUB step_ms = None  # your answer, in ms
### BEGIN SOLUTION
step_ms = ({params_b}e9 + {batch} * {context} * (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)) / {tb_per_s}e12 * 1000  # weights once, a cache per sequence
### END SOLUTION

# %% question="fleet_rate"
### STUB fleet_rate = None  # your answer, in tokens/s
### BEGIN SOLUTION
fleet_rate = {batch} / (({params_b}e9 + {batch} * {context} * (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)) / {tb_per_s}e12)  # one token per sequence per step
### END SOLUTION

# %% question="max_batch"
### STUB max_batch = None  # your answer, a whole number of sequences
### BEGIN SOLUTION
max_batch = int((0.010 * {tb_per_s}e12 - {params_b}e9) // ({context} * 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2))  # rounded down
### END SOLUTION

# %% question="requests_in_flight"
### STUB requests_in_flight = None  # your answer, in requests
### BEGIN SOLUTION
requests_in_flight = {rate} * {latency}  # Little's law: arrival rate x time in the system
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the arithmetic into functions. Sizes are in bytes, bandwidths in bytes per second, times in seconds
# and rates per second, so no unit conversion is needed inside the functions. Where a docstring says to call
# another function, call it by its name rather than repeating its formula. Stuck? Try
# `hint("max_batch_for_itl")`.

# %% question="batch_step_seconds"
def batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    """Seconds for one memory-bound decode step of a batch of sequences.

    The step reads the weights once (param_bytes, shared by the batch) plus every sequence's KV cache:
    batch sequences of context_len positions each, kv_bytes_per_token bytes per position. batch and
    context_len are whole numbers >= 1 (with different contexts, pass their mean).
    Returns (param_bytes + batch * context_len * kv_bytes_per_token) / bandwidth, in seconds.

    Example: batch_step_seconds(70e9, 327680, 4000, 64, 9.6e12) -> 0.0160298...
    """
    ### BEGIN SOLUTION
    return (param_bytes + batch * context_len * kv_bytes_per_token) / bandwidth
    ### END SOLUTION


# %% question="fleet_tokens_per_s"
def fleet_tokens_per_s(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth):
    """The replica's total output rate, in tokens per second, when batch sequences decode together.

    Every sequence gains one token per step, so this is batch / batch_step_seconds(...) with the same
    arguments. Call batch_step_seconds (repeating its formula is right too).

    Example: fleet_tokens_per_s(70e9, 327680, 4000, 64, 9.6e12) -> 3992.56...
    """
    ### BEGIN SOLUTION
    return batch / batch_step_seconds(param_bytes, kv_bytes_per_token, context_len, batch, bandwidth)
    ### END SOLUTION


# %% question="max_batch_for_itl"
def max_batch_for_itl(param_bytes, kv_bytes_per_token, context_len, itl_target, bandwidth):
    """The largest batch whose memory-bound step takes at most itl_target seconds, as an int.

    A step of B sequences meets the target while param_bytes + B * context_len * kv_bytes_per_token <=
    itl_target * bandwidth: return the largest such whole number B (a step exactly at the target meets it).
    Return 0 when even one sequence misses the target. context_len >= 1 and kv_bytes_per_token > 0.
    You may call batch_step_seconds.

    Example: max_batch_for_itl(70e9, 327680, 4000, 0.020, 9.6e12) -> 93
    """
    ### BEGIN SOLUTION
    spare = itl_target * bandwidth - param_bytes  # bytes a step may read beyond the weights
    per_sequence = context_len * kv_bytes_per_token
    if spare < per_sequence:
        return 0
    return int(spare // per_sequence)
    ### END SOLUTION


# %% question="in_flight"
def in_flight(arrival_rate, latency):
    """Little's law: the average number of requests in the system.

    arrival_rate: requests per second (> 0). latency: the average seconds each request spends in the system,
    queueing included (> 0). Returns arrival_rate * latency (an average: do not round it).

    Example: in_flight(8, 10.48) -> 83.84
    """
    ### BEGIN SOLUTION
    return arrival_rate * latency
    ### END SOLUTION


# %% [markdown]
# ### See it: throughput and ITL against the batch
#
# The next cell (tagged `self-check`; its code is folded away) uses **your** `batch_step_seconds` and
# `fleet_tokens_per_s` to draw the worked example's replica (70 GB of weights, 327,680 bytes of cache per token,
# 4,000 tokens of context, 9.6 TB/s) for batches from 1 to 160: the fleet's tokens/s rise and flatten while
# every user's ITL climbs past the 20 ms target. Without matplotlib it prints the same numbers as a table; if
# your functions are not written yet, or give values no replica could, it says so instead.

# %% tags=["self-check"] jupyter={"source_hidden": true}
def _plot_batching(target_ms=20.0):
    """Fleet tokens/s and ITL against the batch, from the learner's functions; a table without matplotlib."""
    import math
    import numbers

    replica = (70e9, 327680, 4000)  # weight bytes, KV bytes per token, context
    bandwidth = 9.6e12
    batches = [1, 2, 4, 8, 16, 32, 48, 64, 80, 93, 112, 128, 144, 160]
    rows = []
    for batch in batches:
        values = []
        for name, function in (("batch_step_seconds", batch_step_seconds), ("fleet_tokens_per_s", fleet_tokens_per_s)):
            call = f"{name}(70e9, 327680, 4000, {batch}, 9.6e12)"
            try:
                value = function(*replica, batch, bandwidth)
            except NotImplementedError:
                print(f"Fill in {name} in Part 2 and run this cell again to see the plot.")
                return
            except Exception as err:
                print(f"No plot yet: {call} raised {type(err).__name__}: {err}. check({name!r}) says more.")
                return
            if not isinstance(value, numbers.Real) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
                print(f"No plot yet: {call} returned {value!r}, which is not a positive number. check({name!r}) says more.")
                return
            values.append(value)
        rows.append((batch, values[0] * 1e3, values[1]))
    if not 1 <= rows[0][1] <= 100 or not 10 <= rows[0][2] <= 1e4:
        print(f"No plot yet: at a batch of 1 your functions give a step of {rows[0][1]:.3g} ms and {rows[0][2]:.3g} "
              "tokens/s; a replica that reads 71 GB at 9.6 TB/s takes a few ms a step. Check the units (seconds, "
              "tokens per second): check('batch_step_seconds') and check('fleet_tokens_per_s') say more.")
        return
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"{'batch':>5}  {'ITL (ms)':>8}  {'fleet tokens/s':>14}  {'per user tokens/s':>17}")
        for batch, itl_ms, fleet in rows:
            mark = "  <- over the target" if itl_ms > target_ms else ""
            print(f"{batch:>5}  {itl_ms:>8.2f}  {fleet:>14.0f}  {1e3 / itl_ms:>17.1f}{mark}")
        print(f"(no matplotlib here: the ITL target is {target_ms:g} ms)")
        return

    fig, left = plt.subplots(figsize=(9, 4.5))
    xs = [batch for batch, _, _ in rows]
    left.plot(xs, [fleet for _, _, fleet in rows], "o-", color="tab:blue", label="fleet tokens/s")
    left.set_xlabel("batch (sequences decoding together)")
    left.set_ylabel("fleet tokens/s", color="tab:blue")
    right = left.twinx()
    right.plot(xs, [itl for _, itl, _ in rows], "s-", color="tab:red", label="ITL per user (ms)")
    right.axhline(target_ms, color="tab:red", linestyle=":", label=f"ITL target {target_ms:g} ms")
    right.set_ylabel("ITL per user (ms)", color="tab:red")
    left.set_title("70 GB of weights, 4,000 tokens of context each, 9.6 TB/s: memory-bound decode")
    fig.legend(loc="upper left", bbox_to_anchor=(0.1, 0.88))
    fig.tight_layout()
    plt.show()


_plot_batching()

# %% [markdown]
# ## Check yourself
#
# **2.** A server uses static batching: it starts 32 requests together and admits new ones only when all 32
# have finished. Their replies range from 20 to 2,000 tokens. Switching to continuous batching raises its
# throughput a lot. Why?
#
# - **A.** A finished sequence's slot sat idle until the longest reply ended; continuous batching refills a freed
#   slot at the next step, so the batch stays full.
# - **B.** Continuous batching makes every decode step shorter, because it reads each sequence's KV cache only
#   once per request instead of once at every step.
# - **C.** Continuous batching runs the sequences one after another rather than together, so each of them has
#   the full memory bandwidth of the replica to itself.
# - **D.** Static batching recomputes the prompts of all 32 requests at every decode step, which continuous
#   batching does only once, when a request joins the batch.
#
# Set `answer_static_batching` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_static_batching"
### STUB answer_static_batching = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_static_batching = "A"  # iteration-level scheduling keeps every slot busy; steps are not faster
### END SOLUTION

# %% [markdown]
# **3.** The replica's monitoring shows its HBM bandwidth at about 75% of the peak at 3 a.m., with one user, and
# at about 75% at noon, with 64 users at 4,000 tokens of context each. An engineer concludes that the night user
# gets 64 times the bandwidth of each noon user, and so streams about 64 times faster. What is right?
#
# - **A.** The engineer: a user's speed is their share of the memory bandwidth, and at noon the same bandwidth
#   is shared 64 ways, so each noon user streams 64 times slower.
# - **B.** The gauge must be wrong: a single user cannot keep 75% of the bandwidth busy, since one sequence
#   reads only its own KV cache at each step.
# - **C.** At noon the replica is compute-bound, which is why its bandwidth stops rising; the night user is
#   memory-bound, and so about 64 times faster.
# - **D.** Both steps stream bytes as fast as memory allows: 71 GB for one token at night, 154 GB for 64 at
#   noon. The night user is only about 2 times faster.
#
# Set `answer_bandwidth_gauge` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_bandwidth_gauge"
### STUB answer_bandwidth_gauge = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_bandwidth_gauge = "D"  # 7.43 ms against 16.03 ms a step: the weights are read either way
### END SOLUTION

# %% [markdown]
# **4.** At a 20 ms ITL target the replica holds at most 93 sequences of 4,000 tokens, and requests take about
# 10.5 s each, end to end. Traffic rises to 10 requests per second. Will the replica keep up?
#
# - **A.** Yes: 10 requests per second is far fewer than the 93 sequences that the replica can hold at once.
# - **B.** No: 10 x 10.5 = 105 requests would be in flight on average, more than its 93 places, so a queue grows.
# - **C.** Yes: a request needs the replica for only one 20 ms step at a time, so it can serve 1 / 0.020 = 50
#   requests every second.
# - **D.** It depends on the p99 latency: Little's law holds only for the median request, so the mean latency
#   says nothing about the requests in flight.
#
# Set `answer_little` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_little"
### STUB answer_little = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_little = "B"  # in flight = arrival rate x latency = 105 > 93
### END SOLUTION

# %% [markdown]
# ## Going further
#
# - **Two limits on the batch, then a third.** The ITL target caps B (93 at 20 ms here), and so does memory
#   (140 sequences of 4,000 tokens fit beside the weights, lesson 5's way). Far enough up, the weights' arithmetic, 2B / b
#   FLOPs per byte, reaches the ridge point, at B ≈ 412 x 1 / 2 = 206 sequences in FP8 on this replica: beyond
#   it a step is compute-bound and adding sequences no longer comes almost free (lesson *Prefill vs decode on
#   one accelerator*). Long contexts hit the memory and ITL limits long before.
# - **Targets are percentiles.** Services state their targets as tails: MLPerf Inference's interactive Llama 2
#   70B benchmark requires a p99 time per output token of at most 40 ms (MLCommons, `loadgen/mlperf.conf`). A
#   prefill scheduled between decode steps stalls every sequence's next token (lesson *Prefill vs decode on one
#   accelerator*), so a batch sized for the average step can still miss a p99 target.
# - **Goodput.** What a service sells is requests that meet their targets per second, not raw tokens per second:
#   DistServe (Zhong et al., OSDI 2024) optimises this *goodput*, splitting prefill and decode onto different
#   GPUs so that neither stalls the other.
#
# ## Takeaway
#
# A memory-bound decode step reads the weights once and every sequence's KV cache: (W + B x C x k) / bandwidth.
# Batching raises the fleet's tokens per second, B / step time, while every user's ITL, the step time itself,
# grows; an ITL target sets the largest batch, rounded down, and Little's law says how many requests that batch
# must hold: arrival rate x latency. A replica's memory bandwidth is busy with one user or with a hundred: no
# batch brings one user below weight bytes / bandwidth.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
