# %% [markdown]
# # Decode: one token at a time
#
# A language model writes its reply one token at a time. In this lesson you will work out why that loop is
# limited by memory bandwidth rather than arithmetic, write small Python models of decode speed, and see why
# batching raises a server's total output without making any single reply faster.

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell, the plot and `check_all()`)
#   are not run by the grader. **Cells marked self-check are only for you; put your answers in the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("generate")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6,
#   except `max_tokens_per_s`, which is checked to 1 decimal place.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 ms = 1e-3 s.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("decode", globals())

# %% [markdown]
# ## Predict first
#
# Before you read on, write down two guesses (no code yet):
#
# 1. A model with 7 billion parameters, stored as 16-bit numbers (2 bytes each), runs on an accelerator that
#    reads memory at 1 TB/s and can do hundreds of trillions of arithmetic operations per second.
#    How many tokens per second will **one** chat get?
# 2. Could the model work out the second token of its reply before it has picked the first?
#
# Keep your guesses; the next section lets you check them.

# %% [markdown]
# ## The idea
#
# **Prefill** processes the whole prompt in one pass. After that, generation is **autoregressive**: each new
# token is fed back in as input for the next one, so token k+1 cannot be known before token k is chosen.
# Decode is therefore a loop of steps, and each step adds one new position to each sequence.
#
# To compute that one position, the model pushes it through every layer, so each step reads **every weight once**
# from memory and does only about 2 arithmetic operations (FLOPs) per weight. With a single stream the chip spends
# its time waiting for memory, not computing: decode is **memory-bandwidth-bound**, and
#
# > time per token >= weight bytes / memory bandwidth
#
# **Worked example.** 7e9 parameters x 2 bytes = 14e9 bytes = **14 GB** read per step.
# At 1 TB/s that takes 14e9 / 1e12 = 0.014 s = **14 ms** per token, so one stream gets at most
# 1000 / 14 = 71.428... ≈ **71.4 tokens/s**. That is only about 2 x 7e9 x 71.4 ≈ 1e12 FLOP/s of arithmetic,
# a small fraction of what the chip could do; its FLOP rating does not change this limit.
#
# **The KV cache grows.** Attention needs the keys and values of every earlier position. They are kept in the
# KV cache, which gains one position per step and is re-read in full at every step. So each step reads the weights
# *plus* a cache that keeps growing: later tokens cost a little more than earlier ones.
#
# **Batching.** If B sequences decode together, one step reads the weights once and uses them for all B new
# positions. Aggregate tokens/s rise (close to B times while memory is the bottleneck), but each sequence still
# gains one token per step: one stream does not get faster.
#
# **Common mistakes**
#
# - Predicting chat speed from peak FLOPs. A single stream is limited by bytes per second, not FLOPs per second.
# - Expecting batching to speed up one user. It raises the total across users, not the speed of each reply.
# - Forgetting that the KV cache grows. Long contexts make every step read more bytes.

# %% [markdown]
# ## Check your understanding
#
# Can an ordinary autoregressive decode know the second generated token before selecting the first?
#
# - **A.** No
# - **B.** Yes
#
# Set `answer_sequential` to `"A"` or `"B"`.

# %% question="answer_sequential"
### STUB answer_sequential = None  # "A" or "B"
### BEGIN SOLUTION
answer_sequential = "A"  # No: token 2 is computed from a sequence that already contains token 1
### END SOLUTION

# %% [markdown]
# ## Part 1: by hand
#
# A model has 7e9 parameters stored at 2 bytes each and runs on an accelerator with 1 TB/s of memory bandwidth.
# You may type a number or an arithmetic expression.
#
# - `gb_per_step`: how many GB are read in one decode step (every weight once)?
# - `ms_per_token`: how many milliseconds does one token take at 1 TB/s?
# - `max_tokens_per_s`: the most tokens per second one stream can get, to 1 decimal place.
#   71.4 (or a more precise 71.43) is right; 71 is not.

# %% question="gb_per_step"
### STUB gb_per_step = None  # your answer, in GB
### BEGIN SOLUTION
gb_per_step = 14  # 7e9 parameters x 2 bytes = 14e9 bytes = 14 GB
### END SOLUTION

# %% question="ms_per_token"
### STUB ms_per_token = None  # your answer, in ms
### BEGIN SOLUTION
ms_per_token = 14  # 14e9 bytes / 1e12 bytes/s = 0.014 s = 14 ms
### END SOLUTION

# %% question="max_tokens_per_s"
### STUB max_tokens_per_s = None  # your answer, in tokens/s, to 1 decimal place
### BEGIN SOLUTION
max_tokens_per_s = 71.4  # 1000 ms / 14 ms = 71.428... tokens/s
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the arithmetic into functions. Sizes are in bytes, bandwidths in bytes per second and times in
# seconds, so no unit conversion is needed inside the functions. Where a docstring says to call another
# function, call it by its name rather than repeating its formula.
#
# The last two functions model the decode loop itself. `next_token(sequence)` stands in for the model: given the
# whole sequence so far (a list of token ids), it returns the next id. Stuck? Try `hint("generate")`.

# %% question="decode_step_seconds"
def decode_step_seconds(param_bytes, bandwidth):
    """Seconds for one decode step, which reads every weight once.

    param_bytes: total bytes of the weights (parameters x bytes per parameter).
    bandwidth: memory bandwidth in bytes per second (1 TB/s = 1e12).
    Returns param_bytes / bandwidth, in seconds.

    Example: decode_step_seconds(14e9, 1e12) -> 0.014
    """
    ### BEGIN SOLUTION
    return param_bytes / bandwidth
    ### END SOLUTION


# %% question="tokens_per_second"
def tokens_per_second(param_bytes, bandwidth):
    """The best decode rate of a single sequence, in tokens per second.

    Each step yields one token, so this is 1 / decode_step_seconds(param_bytes, bandwidth).
    Call decode_step_seconds; do not repeat its formula.

    Example: tokens_per_second(14e9, 1e12) -> 71.428...
    """
    ### BEGIN SOLUTION
    return 1 / decode_step_seconds(param_bytes, bandwidth)
    ### END SOLUTION


# %% question="decode_time"
def decode_time(n_tokens, param_bytes, bandwidth):
    """Total seconds to generate n_tokens one after another, one decode step each.

    Returns n_tokens * decode_step_seconds(param_bytes, bandwidth).
    n_tokens is a whole number >= 0; 0 tokens take 0.0 seconds.
    Call decode_step_seconds; do not repeat its formula.

    Example: decode_time(100, 14e9, 1e12) -> 1.4
    """
    ### BEGIN SOLUTION
    return n_tokens * decode_step_seconds(param_bytes, bandwidth)
    ### END SOLUTION


# %% question="generate"
def generate(next_token, prompt, n):
    """Generate n tokens autoregressively; return the prompt followed by the n new token ids.

    next_token(sequence) takes the whole sequence so far (a list of ints) and returns the next id (an int).
    Call next_token exactly once per new token, each time on the whole sequence so far (the prompt plus
    the tokens generated so far), and append what it returns.
    Return a new list of length len(prompt) + n. Do not modify the caller's prompt list.
    n >= 0 (n = 0 returns a copy of the prompt); prompt may be empty.

    Example: generate(lambda s: len(s), [5], 3) -> [5, 1, 2, 3]
    """
    ### BEGIN SOLUTION
    sequence = list(prompt)  # a copy: the caller's prompt stays unchanged
    for _ in range(n):
        # Pass a copy as well, so next_token cannot change our sequence.
        sequence.append(next_token(list(sequence)))
    return sequence
    ### END SOLUTION


# %% question="call_order_is_sequential"
def call_order_is_sequential(next_token, prompt, n):
    """Check that generate calls next_token once per token, in order, on the growing sequence.

    Wrap next_token in a function that records len(sequence) at every call and returns next_token(sequence).
    Run generate(wrapper, prompt, n) (the global generate, so this tests whichever generate is defined).
    Return True if the recorded lengths are exactly
    [len(prompt), len(prompt) + 1, ..., len(prompt) + n - 1] (an empty list when n = 0), else False.

    Example: call_order_is_sequential(lambda s: 0, [7, 8], 3) -> True (lengths 2, 3, 4)
    """
    ### BEGIN SOLUTION
    lengths = []

    def recording_next_token(sequence):
        lengths.append(len(sequence))
        return next_token(sequence)

    generate(recording_next_token, prompt, n)
    return lengths == list(range(len(prompt), len(prompt) + n))
    ### END SOLUTION


# %% [markdown]
# ### See it: decode speed on real accelerators
#
# The next cell (tagged `self-check`) uses **your** `tokens_per_second` to plot the best single-stream speed for
# 1B, 7B, 13B and 70B models at 2 bytes per parameter on five accelerators, using their published memory
# bandwidths: NVIDIA L4 (300 GB/s), Apple M2 Ultra (800 GB/s), NVIDIA A100 80GB SXM (2,039 GB/s),
# NVIDIA H100 SXM (3.35 TB/s) and AMD MI300X (5.3 TB/s). For example, a 7B model on an H100 SXM gets at most
# 3.35e12 / 14e9 ≈ 239 tokens/s.
#
# These are upper bounds from bandwidth alone. They ignore whether the model fits: 70B parameters at 2 bytes
# is 140 GB, more than one L4 (24 GB), A100 (80 GB) or H100 (80 GB) holds.

# %% tags=["self-check"]
def _plot_decode_speeds():
    """Plot tokens_per_second across model sizes and accelerators, or say kindly why not yet."""
    import math
    import numbers

    accelerators = [  # (name, published peak memory bandwidth in bytes/s)
        ("NVIDIA L4", 300e9),
        ("Apple M2 Ultra", 800e9),
        ("NVIDIA A100 80GB SXM", 2.039e12),
        ("NVIDIA H100 SXM", 3.35e12),
        ("AMD MI300X", 5.3e12),
    ]
    models = [("1B", 1e9), ("7B", 7e9), ("13B", 13e9), ("70B", 70e9)]  # (name, parameters)
    bytes_per_param = 2

    try:
        rates = {
            name: [tokens_per_second(params * bytes_per_param, bw) for _, bw in accelerators]
            for name, params in models
        }
        usable = all(
            isinstance(r, numbers.Real) and not isinstance(r, bool) and math.isfinite(r) and r > 0
            for row in rates.values()
            for r in row
        )
    except Exception:
        usable = False
    if not usable:
        print("Fill in tokens_per_second in Part 2 and run this cell again to see the plot.")
        return

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    width = 0.8 / len(models)
    for i, (name, _) in enumerate(models):
        xs = [j + (i - (len(models) - 1) / 2) * width for j in range(len(accelerators))]
        ax.bar(xs, rates[name], width, label=f"{name} x {bytes_per_param} bytes")
    ax.set_xticks(range(len(accelerators)))
    ax.set_xticklabels([f"{name}\n{bw / 1e12:g} TB/s" for name, bw in accelerators], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("tokens/s for one stream (upper bound)")
    ax.set_title("Single-stream decode speed = memory bandwidth / weight bytes")
    ax.legend(title="model")
    fig.tight_layout()
    plt.show()


_plot_decode_speeds()

# %% [markdown]
# ## Check yourself
#
# **1.** One replica serves a 70B-parameter model in FP8 (1 byte per weight, so 70 GB of weights).
# It prefills a 4,000-token prompt in about 0.5 s, then takes about 40 s to write 4,000 output tokens:
# 40 s / 4,000 = 10 ms per token, the time to read 70 GB at about 7 TB/s. Why is the output so much slower?
#
# - **A.** Output tokens are longer than prompt tokens, so each one takes more work.
# - **B.** Prefill runs on more GPUs than decode.
# - **C.** Prefill knows all 4,000 prompt positions at once, so each weight load is reused across the whole
#   prompt; decode must re-read all the weights for every output token, one token after another.
# - **D.** Decode computes many more FLOPs per token than prefill.
#
# Set `answer_prefill_vs_decode` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_prefill_vs_decode"
### STUB answer_prefill_vs_decode = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_prefill_vs_decode = "C"  # one weight read serves 4,000 prompt positions; decode needs one per token
### END SOLUTION

# %% [markdown]
# **2.** A team raises the decode batch from 1 to 8. The fleet's total tokens/s goes up a lot, but one user's
# reply streams no faster than before. Is that a bug?
#
# - **A.** Yes: with a batch of 8, every stream should become about 8 times faster.
# - **B.** No: each step still moves each sequence forward by one token; the 8 streams share one read of the
#   weights, so the total rises while each stream still gets one token per step.
# - **C.** Yes: the 8 users share one KV cache, so each step should be shorter for everyone.
#
# Set `answer_batching_bug` to `"A"`, `"B"` or `"C"`.

# %% question="answer_batching_bug"
### STUB answer_batching_bug = None  # "A", "B" or "C"
### BEGIN SOLUTION
answer_batching_bug = "B"  # batching shares the weight read; each stream still gains one token per step
### END SOLUTION

# %% [markdown]
# ## Going further
#
# These four functions are graded too. As in Part 2, each docstring gives the exact formula, units and edge cases.
#
# **Latency of one request.** A server reports *time to first token* (TTFT, mostly prefill) and
# *inter-token latency* (ITL, one decode step). A request that produces n_out tokens takes
# TTFT + (n_out - 1) x ITL. Example: TTFT 0.20 s, then a token every 0.05 s, 5 tokens:
# 0.20 + 4 x 0.05 = **0.40 s** in all. The steady rate is 1 / ITL = **20 tokens/s**, but over the whole request
# the user sees 5 / 0.40 = **12.5 tokens/s**.

# %% question="request_time"
def request_time(ttft, itl, n_out):
    """Total seconds for one request that produces n_out tokens.

    ttft: time to first token, in seconds. itl: inter-token latency (seconds between later tokens).
    n_out: number of output tokens, a whole number >= 1.
    Returns ttft + (n_out - 1) * itl; with n_out = 1 that is just ttft.

    Example: request_time(0.20, 0.05, 5) -> 0.40
    """
    ### BEGIN SOLUTION
    return ttft + (n_out - 1) * itl
    ### END SOLUTION


# %% [markdown]
# **Batching.** When `batch` sequences decode together and each step is still bound by reading the weights once,
# every step gives each sequence one token. With 14 GB of weights at 1 TB/s and a batch of 8, the total is
# 8 x 71.43 ≈ **571.4 tokens/s**, while each stream still gets **71.4 tokens/s**. (This simple model ignores
# the KV cache and arithmetic; real batches stop scaling once a step becomes compute-bound or memory runs out.)

# %% question="batch_throughput"
def batch_throughput(param_bytes, bandwidth, batch):
    """Tokens/s of a batch whose every decode step is bound by reading the weights once.

    batch: number of sequences decoding together, a whole number >= 1.
    Returns the tuple (aggregate_tokens_per_s, per_stream_tokens_per_s) =
    (batch * tokens_per_second(param_bytes, bandwidth), tokens_per_second(param_bytes, bandwidth)).
    Call tokens_per_second; do not repeat its formula.

    Example: batch_throughput(14e9, 1e12, 8) -> (571.428..., 71.428...)
    """
    ### BEGIN SOLUTION
    per_stream = tokens_per_second(param_bytes, bandwidth)
    return (batch * per_stream, per_stream)
    ### END SOLUTION


# %% [markdown]
# **The KV cache.** A step reads the weights plus the KV cache of every position so far. Take a 7B model
# (14 GB of weights) whose KV cache costs 0.5 MB = 5e5 bytes per position, at 1 TB/s:
#
# - at a context of 1,000 positions: (14e9 + 1,000 x 5e5) / 1e12 = 14.5e9 / 1e12 = **14.5 ms** per step;
# - at 32,000 positions: (14e9 + 16e9) / 1e12 = **30 ms** per step. The cache (16 GB) now outweighs the
#   weights, and each token takes more than twice as long.
#
# So late tokens are slower than early ones. Generating 3 tokens after a 1,000-token prompt reads contexts of
# 1,000, 1,001 and 1,002 positions: 14.5 + 14.5005 + 14.501 = **43.5015 ms** in all.

# %% question="kv_step_seconds"
def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    """Seconds for one decode step that reads all the weights plus the KV cache of context_len positions.

    kv_bytes_per_token: bytes of KV cache per position. context_len: positions in the cache, a whole number >= 0.
    Returns (param_bytes + kv_bytes_per_token * context_len) / bandwidth, in seconds.

    Example: kv_step_seconds(14e9, 5e5, 1000, 1e12) -> 0.0145
    """
    ### BEGIN SOLUTION
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth
    ### END SOLUTION


# %% question="kv_decode_time"
def kv_decode_time(n_tokens, prompt_len, param_bytes, kv_bytes_per_token, bandwidth):
    """Total seconds to generate n_tokens after a prompt of prompt_len tokens, with a growing KV cache.

    The step that produces new token k (k = 0, 1, ..., n_tokens - 1) reads the KV cache of prompt_len + k positions.
    Returns the sum over k of kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth).
    n_tokens is a whole number >= 0; 0 tokens take 0.0 seconds. Call kv_step_seconds; do not repeat its formula.

    Example: kv_decode_time(3, 1000, 14e9, 5e5, 1e12) -> 0.0435015
    """
    ### BEGIN SOLUTION
    total = 0.0
    for k in range(n_tokens):
        total += kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth)
    return total
    ### END SOLUTION


# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
