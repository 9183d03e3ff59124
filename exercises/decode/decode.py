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
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell, the step-through, the plot and
#   `check_all()`) are not run by the grader. **Cells marked self-check are only for you; put your answers in the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("generate")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6,
#   except `ms_per_token`, which is checked to 2 decimal places, and `max_tokens_per_s`, to 1.
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
# positions. Aggregate tokens/s rise (close to B times while the weight read dominates the bytes of a step: each
# sequence adds its own KV cache to read, so at long contexts and large B the gain is smaller), but each
# sequence still gains one token per step: one stream does not get faster.
#
# **Common mistakes**
#
# - Predicting chat speed from peak FLOPs. A single stream is limited by bytes per second, not FLOPs per second.
# - Expecting batching to speed up one user. It raises the total across users, not the speed of each reply.
# - Forgetting that the KV cache grows. Long contexts make every step read more bytes.

# %% [markdown]
# ### Step through it
#
# Run the next cell and press **next token** (or move the *token* slider): each step reads every weight, and
# only then picks exactly one token. The other sliders set the model size (billions of parameters), the
# precision (bytes per parameter) and the memory bandwidth (TB/s); the weights read per step, the time per
# token and the tokens/s follow. Where sliders cannot be shown (no ipywidgets, or outside Jupyter) the cell
# prints the same steps as a table. Like every `self-check` cell, the grader never runs it. Its code is folded
# away: click the bar to the left of the cell to see it.

# %% tags=["self-check"] jupyter={"source_hidden": true}
def _step_through(n_tokens=5, params_b=7.0, bytes_per_param=2.0, tb_per_s=1.0):
    """Generation one token at a time, with sliders; a printed table where widgets are unavailable."""

    def step(token, params_b, bytes_per_param, tb_per_s):
        weight_gb = params_b * bytes_per_param  # 1e9 parameters x bytes each = GB
        seconds = weight_gb * 1e9 / (tb_per_s * 1e12)
        done = token - 1
        after = f"it cannot know token {token + 1} first." if token < n_tokens else "the reply is complete."
        return "\n".join([
            f"Token {token} of {n_tokens}",
            f"step {token}: the model reads all weights ({weight_gb:g} GB), uses the {done} token{'' if done == 1 else 's'} "
            f"already produced, and only then can it pick token {token}; {after}",
            f"time per token: {weight_gb:g} GB / {tb_per_s:g} TB/s = {seconds * 1e3:.3g} ms, so {1 / seconds:.1f} tokens/s",
            f"tokens 1 to {token} took {token * seconds * 1e3:.3g} ms in all",
        ])

    try:
        import ipywidgets as widgets
        from IPython import get_ipython
        from IPython.display import display

        if getattr(get_ipython(), "kernel", None) is None:
            raise ImportError("not in a Jupyter kernel")
    except ImportError:
        seconds = params_b * bytes_per_param * 1e9 / (tb_per_s * 1e12)
        print(f"{params_b:g}B parameters x {bytes_per_param:g} bytes at {tb_per_s:g} TB/s (no sliders here):")
        print(f"{'token':>5}  {'weights read':>12}  {'tokens before':>13}  {'ms per token':>12}  {'ms in all':>9}  {'tokens/s':>8}")
        for token in range(1, n_tokens + 1):
            print(f"{token:>5}  {params_b * bytes_per_param:>9g} GB  {token - 1:>13}  {seconds * 1e3:>12.3g}  "
                  f"{token * seconds * 1e3:>9.3g}  {1 / seconds:>8.1f}")
        return

    label = {"style": {"description_width": "110px"}}
    token = widgets.IntSlider(value=1, min=1, max=n_tokens, description="token", **label)
    params = widgets.FloatSlider(value=params_b, min=1, max=70, step=1, description="params (billions)", **label)
    precision = widgets.SelectionSlider(
        options=[("4-bit: 0.5", 0.5), ("FP8: 1", 1.0), ("BF16: 2", 2.0), ("FP32: 4", 4.0)],
        value=bytes_per_param, description="bytes per param", **label,
    )
    bandwidth = widgets.FloatSlider(value=tb_per_s, min=0.1, max=8.0, step=0.05, description="TB/s", **label)
    next_token = widgets.Button(description="next token")
    next_token.on_click(lambda _: setattr(token, "value", token.value % n_tokens + 1))
    shown = widgets.interactive_output(
        lambda **kw: print(step(**kw)),
        {"token": token, "params_b": params, "bytes_per_param": precision, "tb_per_s": bandwidth},
    )
    display(widgets.VBox([widgets.HBox([token, next_token]), params, precision, bandwidth, shown]))


_step_through()

# %% [markdown]
# ## Check your understanding
#
# Can an ordinary autoregressive decode know the second generated token before selecting the first?
#
# - **A.** No: token 2 is computed from a sequence that already ends with token 1, so it must wait for it.
# - **B.** Yes: the model can score every later position at once, as it does for the prompt during prefill.
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
# Now the same three steps on another model and accelerator (the worked example above will not give these
# answers): a model with **{params_b}e9 parameters stored in {precision}, {bytes_per_param} byte per parameter**, runs on an
# {gpu} with **{tb_per_s} TB/s** of memory bandwidth ({tb_per_s}e12 bytes/s, from {datasheet}). You may type a
# number or an arithmetic expression.
#
# - `gb_per_step`: how many GB are read in one decode step (every weight once)?
# - `ms_per_token`: how many milliseconds does one token take at {tb_per_s} TB/s? Keep at least 2 decimal places.
# - `max_tokens_per_s`: the most tokens per second one stream can get, to at least 1 decimal place (a whole
#   number is not precise enough).

# %% question="gb_per_step"
### STUB gb_per_step = None  # your answer, in GB
### BEGIN SOLUTION
gb_per_step = {params_b}e9 * {bytes_per_param} / 1e9  # parameters x bytes per parameter, in GB
### END SOLUTION

# %% question="ms_per_token"
### STUB ms_per_token = None  # your answer, in ms
### BEGIN SOLUTION
ms_per_token = {params_b}e9 * {bytes_per_param} / {tb_per_s}e12 * 1000  # bytes / (bytes per second) = seconds; x 1000 for ms
### END SOLUTION

# %% question="max_tokens_per_s"
### STUB max_tokens_per_s = None  # your answer, in tokens/s, to 1 decimal place
### BEGIN SOLUTION
max_tokens_per_s = {tb_per_s}e12 / ({params_b}e9 * {bytes_per_param})  # one token per step: 1 / (seconds per step)
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
    Call decode_step_seconds (repeating its formula is right too).

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
    Call decode_step_seconds (repeating its formula is right too).

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
# The next cell (tagged `self-check`; its code is folded away) uses **your** `tokens_per_second` to plot the
# best single-stream speed for 1B, 7B, 13B and 70B models at 2 bytes per parameter on five accelerators, using
# their published memory bandwidths: NVIDIA L4 (300 GB/s), Apple M2 Ultra (800 GB/s), NVIDIA A100 80GB SXM
# (2,039 GB/s), NVIDIA H100 SXM (3.35 TB/s) and AMD MI300X (5.3 TB/s). For example, a 7B model on an H100 SXM
# gets at most 3.35e12 / 14e9 ≈ 239 tokens/s. If your function gives values no accelerator could, the cell
# says what looks wrong instead of drawing.
#
# These are upper bounds from bandwidth alone. They ignore whether the model fits: 70B parameters at 2 bytes
# is 140 GB, more than one L4 (24 GB), A100 (80 GB) or H100 (80 GB) holds.

# %% tags=["self-check"] jupyter={"source_hidden": true}
def _implausible_speeds(accelerators, models, bytes_per_param):
    """Why your tokens_per_second would draw a nonsense plot, in a sentence; None if its values look plausible."""
    import math
    import numbers

    def more(param_bytes, bandwidth):
        """Where to look next: decode_step_seconds if that is what is wrong (tokens_per_second calls it)."""
        try:
            step = decode_step_seconds(param_bytes, bandwidth)
        except (NameError, NotImplementedError):  # not written yet: no evidence against it
            return 'check("tokens_per_second") says more.'
        except Exception as err:
            return f'Your decode_step_seconds, which tokens_per_second calls, raised {type(err).__name__}: check("decode_step_seconds") says more.'
        if isinstance(step, numbers.Real) and not isinstance(step, bool) and math.isclose(step, param_bytes / bandwidth, rel_tol=1e-6):
            return 'check("tokens_per_second") says more.'
        return (f"Your decode_step_seconds({param_bytes:g}, {bandwidth:g}) returned {step!r}, which is not the seconds "
                'per step, and tokens_per_second uses it: check("decode_step_seconds") says more.')

    rates = {}
    for name, params in models:
        for accelerator, bandwidth in accelerators:
            call = f"tokens_per_second({params * bytes_per_param:g}, {bandwidth:g})"
            try:
                rate = tokens_per_second(params * bytes_per_param, bandwidth)
            except NotImplementedError:
                return "Fill in tokens_per_second in Part 2 and run this cell again to see the plot."
            except Exception as err:
                return f"No plot yet: {call} raised {type(err).__name__}: {err}. Fix tokens_per_second, then run this cell again."
            if not isinstance(rate, numbers.Real) or isinstance(rate, bool) or not math.isfinite(rate) or rate <= 0:
                return (f"No plot yet: {call} returned {rate!r}, but a speed is a positive number of tokens per second. "
                        + more(params * bytes_per_param, bandwidth))
            if not 0.1 <= rate <= 1e6:
                return (f"No plot yet: {call} ({name} model, {accelerator}) returned {rate:.3g} tokens/s, which no real "
                        "accelerator gives: check the units (bytes and bytes/s in, tokens per second out; not milliseconds, "
                        "not seconds per token). " + more(params * bytes_per_param, bandwidth))
            rates[name, accelerator] = rate
    for accelerator, _ in accelerators:
        small, large = rates[models[0][0], accelerator], rates[models[-1][0], accelerator]
        if not large < small:
            return (f"No plot yet: with your tokens_per_second a {models[-1][0]} model is as fast as or faster than a "
                    f"{models[0][0]} model on the {accelerator} ({large:.3g} against {small:.3g} tokens/s). Every step "
                    "reads all the weights, so more weights should mean fewer tokens per second: is the formula upside "
                    "down? " + more(models[0][1] * bytes_per_param, accelerators[0][1]))
    for name, _ in models:
        slow, fast = rates[name, accelerators[0][0]], rates[name, accelerators[-1][0]]
        if not fast > slow:
            return (f"No plot yet: with your tokens_per_second the {name} model is no faster on the {accelerators[-1][0]} "
                    f"than on the {accelerators[0][0]}, which has far less memory bandwidth ({fast:.3g} against {slow:.3g} "
                    "tokens/s). Decode speed should grow with bandwidth. " + more(models[0][1] * bytes_per_param, accelerators[0][1]))
    return None


def _plot_decode_speeds():
    """Plot tokens_per_second across model sizes and accelerators, or say kindly why not (yet)."""
    accelerators = [  # (name, published peak memory bandwidth in bytes/s)
        ("NVIDIA L4", 300e9),
        ("Apple M2 Ultra", 800e9),
        ("NVIDIA A100 80GB SXM", 2.039e12),
        ("NVIDIA H100 SXM", 3.35e12),
        ("AMD MI300X", 5.3e12),
    ]
    models = [("1B", 1e9), ("7B", 7e9), ("13B", 13e9), ("70B", 70e9)]  # (name, parameters)
    bytes_per_param = 2

    problem = _implausible_speeds(accelerators, models, bytes_per_param)
    if problem:
        print(problem)
        return
    rates = {name: [tokens_per_second(params * bytes_per_param, bw) for _, bw in accelerators] for name, params in models}

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
# ## Part 3: arithmetic intensity, or why decode waits for memory
#
# In one decode step of one sequence, a dense model with N parameters does about 2N FLOPs (a multiply and an
# add for each weight) and reads about N x b bytes of weights, at b bytes per parameter. Its **arithmetic
# intensity**, the FLOPs it does per byte it reads, is therefore about 2N / (N x b) = 2 / b: at 2 bytes per
# parameter, 2 / 2 = **1 FLOP per byte**. (This counts the scan of the weights only; activations and the KV
# cache add bytes and lower it further.)
#
# A chip keeps its arithmetic units busy only if each byte it reads feeds enough FLOPs: at least its peak
# FLOP/s divided by its memory bandwidth. That ratio is the **ridge point** of the roofline model: below it a
# program is memory-bound, above it compute-bound. An NVIDIA H100 SXM does about 989 TFLOP/s of dense BF16
# arithmetic and reads 3.35 TB/s: 989e12 / 3.35e12 ≈ **295 FLOPs per byte**. Single-stream decode, at about
# 1 FLOP per byte, sits nearly 300 times below that ridge point: the arithmetic units wait for memory.
# Batching B sequences does B times the FLOPs for the same weight bytes (about 2B / b FLOPs per byte), which is
# why batching raises throughput until it nears the ridge point.
#
# - `intensity_4bit`: the FLOPs per byte of weights read in one single-sequence decode step of a model
#   quantised to 4 bits (0.5 bytes per parameter).
# - `ridge_point(peak_flops, bandwidth)`: a chip's ridge point, in FLOPs per byte.

# %% question="intensity_4bit"
### STUB intensity_4bit = None  # your answer, in FLOPs per byte
### BEGIN SOLUTION
intensity_4bit = 4  # about 2 FLOPs per parameter / 0.5 bytes per parameter
### END SOLUTION

# %% question="ridge_point"
def ridge_point(peak_flops, bandwidth):
    """A chip's ridge point: the arithmetic intensity (FLOPs per byte) above which it stops waiting for memory.

    peak_flops: peak arithmetic rate, in FLOP/s. bandwidth: memory bandwidth, in bytes per second.
    Returns peak_flops / bandwidth, in FLOPs per byte. Work with fewer FLOPs per byte is memory-bound.

    Example: ridge_point(989e12, 3.35e12) -> 295.22...
    """
    ### BEGIN SOLUTION
    return peak_flops / bandwidth
    ### END SOLUTION

# %% [markdown]
# ## Check yourself
#
# **1.** One replica serves a 70B-parameter model in FP8 (1 byte per weight, so 70 GB of weights).
# It prefills a 4,000-token prompt in about 0.5 s, then takes about 40 s to write 4,000 output tokens:
# 40 s / 4,000 = 10 ms per token, the time to read 70 GB at about 7 TB/s. Why is the output so much slower?
#
# - **A.** Output tokens carry more information than prompt tokens, so the model must run more layers and
#   more arithmetic for each one it writes than for each one it reads.
# - **B.** Prefill is spread over many more GPUs than decode, so the 4,000 prompt tokens are shared out across
#   them while every output token is left to a single GPU.
# - **C.** Prefill knows all 4,000 prompt positions at once and reuses each weight load across the whole
#   prompt; decode must re-read all the weights for every output token.
# - **D.** Decode computes many more FLOPs per token than prefill, because attention over the growing reply
#   costs far more arithmetic than all the weight multiplications.
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
# - **A.** Yes: a batch of 8 reads the weights once for 8 streams, so each stream's steps should take an
#   eighth of the time and every user should get about 8 times as many tokens per second.
# - **B.** No: the 8 streams share one read of the weights per step, so the total rises, but each step
#   still moves each sequence forward by one token.
# - **C.** Yes: the 8 users share one KV cache, so each step reads less per user and should be shorter
#   for everyone, which a correct server would show as a faster stream for each of them.
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
# These five functions and one question are graded too. As in Part 2, each docstring gives the exact formula,
# units and edge cases.
#
# **Latency of one request.** A server reports *time to first token* (TTFT, mostly prefill) and
# *inter-token latency* (ITL, one decode step), often also *time per output token* (TPOT): the average time per
# output token after the first, (T - TTFT) / (n_out - 1) for a request that takes T seconds. With steady decode
# steps TPOT equals the ITL: decode sets both, prefill sets the TTFT. A request that produces n_out tokens takes
# TTFT + (n_out - 1) x ITL. Example: TTFT 0.20 s, then a token every 0.05 s, 5 tokens:
# 0.20 + 4 x 0.05 = **0.40 s** in all. The steady rate is 1 / ITL = **20 tokens/s**, but over the whole request
# the user sees 5 / 0.40 = **12.5 tokens/s**.
#
# Part 2's `decode_time(n)` charges n decode steps, one per token, because it models the decode loop alone;
# in a server the first token comes from prefill, at the TTFT, so a request takes the TTFT plus n_out - 1
# decode steps.

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
# **Which tokens/s?** For the request above, dashboard X reports **20 tokens/s** and dashboard Y reports
# **12.5 tokens/s**. Which one is right?
#
# - **A.** X: the rate of a request is how fast tokens arrive once they flow, so Y must have timed the
#   request wrongly, perhaps by counting the network or the queue.
# - **B.** Y: the steady rate leaves out the wait for the first token, so X's number overstates what the
#   user gets and is wrong.
# - **C.** Both: X reports the steady decode rate 1 / ITL, Y the request's output rate n_out / T; they use
#   different definitions, so compare definitions before numbers.
# - **D.** Neither: the right rate divides the tokens by the time to the first token, n_out / TTFT, which
#   neither dashboard shows.
#
# Set `answer_rate_definitions` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_rate_definitions"
### STUB answer_rate_definitions = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_rate_definitions = "C"  # 1 / ITL and n_out / T are both valid; they measure different things
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
    Call tokens_per_second (repeating its formula is right too).

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
    n_tokens is a whole number >= 0; 0 tokens take 0.0 seconds.
    Call kv_step_seconds (repeating its formula is right too).

    Example: kv_decode_time(3, 1000, 14e9, 5e5, 1e12) -> 0.0435015
    """
    ### BEGIN SOLUTION
    total = 0.0
    for k in range(n_tokens):
        total += kv_step_seconds(param_bytes, kv_bytes_per_token, prompt_len + k, bandwidth)
    return total
    ### END SOLUTION

# %% [markdown]
# **Speculative decoding.** Decode reads all the weights to gain one token. Speculative decoding gets more from
# each read: a small, fast *draft* model proposes k tokens, then the large model scores k + 1 positions in one
# pass (one read of its weights, as in prefill: the k drafted tokens and the position after them). With greedy
# decoding it keeps the drafted tokens up to the first one it would not have produced, plus one token of its
# own, so the output is what the large model alone would have written. (With sampling, each drafted token is
# accepted with probability min(1, p / q), the large model's probability of it over the draft's, and a rejected
# one is resampled, which keeps the large model's output distribution: Leviathan et al., below.)
# If each drafted token is accepted with probability a, independently, one pass yields on average
# (1 - a^(k+1)) / (1 - a) tokens (Leviathan, Kalman and Matias, "Fast Inference from Transformers via
# Speculative Decoding", ICML 2023). With k = 4 and a = 0.8: (1 - 0.8^5) / (1 - 0.8) = **3.3616** tokens per
# pass instead of 1. It pays only when the draft is accurate and cheap: at a = 0 a pass still gives 1 token, and
# the draft model's time is lost.

# %% question="expected_tokens_per_pass"
def expected_tokens_per_pass(k, a):
    """Expected number of tokens one verification pass of speculative decoding produces.

    k: tokens the draft model proposes per pass, a whole number >= 0.
    a: probability that each drafted token is accepted, independently of the others (0 <= a <= 1).
    Returns (1 - a**(k + 1)) / (1 - a): the accepted drafted tokens plus the one token the large model adds.
    With a = 1 (every drafted token accepted) that formula divides 0 by 0: return k + 1 instead.
    Source: Y. Leviathan, M. Kalman and Y. Matias, "Fast Inference from Transformers via Speculative
    Decoding", ICML 2023: the expected number of tokens per run of the target model, with gamma = k
    drafted tokens and acceptance rate alpha = a.

    Example: expected_tokens_per_pass(4, 0.8) -> 3.3616
    """
    ### BEGIN SOLUTION
    if a == 1:
        return k + 1
    return (1 - a ** (k + 1)) / (1 - a)
    ### END SOLUTION


# %% [markdown]
# ## Takeaway
#
# Once the first token has arrived, an interactive reply's latency is mostly its output tokens: n_out - 1
# decode steps, each of which reads every weight (and the KV cache) to gain one token per sequence. Memory
# bandwidth, bytes per parameter and the reply's length set it; peak FLOP/s barely matter. The chapter's
# common mistakes are in the chapter reference below.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
