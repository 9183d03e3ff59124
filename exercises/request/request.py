# %% [markdown]
# # A request, end to end
#
# Every reply a language model streams goes through the same life: the prompt is read, the first token
# appears, then the others follow one at a time. In this lesson you will name the times a user feels (time to
# first token, the gap between tokens, the whole request), see why "tokens per second" can mean three
# different things, and learn to read a latency distribution by its percentiles rather than its mean.
#
# This is lesson 1 of the chapter *trace a generation request through prefill and decode*; the next
# lessons explain where the times come from (prefill, then decode).

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell and `check_all()`) are not
#   run by the grader. **Cells marked self-check are only for you; put your answers in the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("percentile")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6,
#   except `request_tokens_per_s`, which is checked to 1 decimal place.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 ms = 1e-3 s. Inside the
#   functions of Part 2 every time is in seconds.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("request", globals())

# %% [markdown]
# ## Predict first
#
# Before you read on, write down two guesses (no code yet):
#
# 1. A chat reply of 500 tokens. The first token appears 0.5 s after you press enter, and after that a new
#    token appears every 10 ms. When does the last token appear?
# 2. One engine's web page says "100 tokens/s"; a benchmark of the very same request says "91 tokens/s", and
#    the operator of the whole service says "230 tokens/s". Can all three be right?
#
# Keep your guesses; the next section lets you check them.

# %% [markdown]
# ## The idea: the life of one request
#
# A request carries a **prompt** of L tokens. The server first runs **prefill**: one pass of the model over
# all L prompt tokens at once, which writes the prompt's keys and values into the KV cache and ends with the
# **first output token**. Then comes **decode**: one step per further token, each step reading the model's
# weights to add one token to the reply, until the reply has n_out tokens.
#
# ```
# sent          first token                                        last token
#  |--- TTFT ---|-- ITL --|-- ITL --|-- ITL --| ... |-- ITL --|
#  | queue, prefill |  tok 1    tok 2     tok 3             tok n_out
# ```
#
# The times a user feels, as this lesson defines them (the definitions of vLLM's `benchmark_serving`; NVIDIA's
# GenAI-Perf and NIM use the same TTFT and T, but a different ITL: see the note below the list):
#
# - **TTFT**, time to first token: from sending the request to receiving the first output token. It
#   includes waiting in the queue, the prefill and the network, so it grows with the prompt and with the load.
# - **ITL**, inter-token latency: the gap between two consecutive output tokens, one decode step.
# - **TPOT**, time per output token: the average gap of one request, (T - TTFT) / (n_out - 1). It leaves the
#   first token out, since that one came from prefill. When every gap is the same (**steady gaps**), TPOT
#   equals the ITL.
# - **T**, end-to-end latency: from sending the request to receiving its last token.
#
# *Which ITL?* vLLM's ITL is every gap between two streamed tokens, as above. NVIDIA's GenAI-Perf and NIM
# ("NIM LLM Benchmarking: Metrics") define ITL as one request's average gap, (T - TTFT) / (n_out - 1): that is
# the TPOT of this lesson. Read a benchmark's definition before you compare its ITL with another's.
#
# After the first token there are n_out - 1 gaps, so
#
# > T = TTFT + (n_out - 1) x TPOT, exactly (that is how TPOT is defined), and
# > T ≈ TTFT + (n_out - 1) x ITL **if the gaps are steady**.
#
# The gaps are not always steady: later steps read a longer KV cache, and another request's prefill can stall
# a decode step. The formula with one ITL is then an estimate; the measured TPOT keeps it exact.
#
# **Worked example: the chapter's replica.** The chapter serves a 70B-parameter model in FP8 (1 byte per
# weight, 70 GB of weights) on one replica of two NVIDIA H200 SXM GPUs with tensor parallelism. The H200
# datasheet gives each GPU 141 GB of HBM3e at 4.8 TB/s and 3,958 TFLOP/s of FP8 *with sparsity*, half of that,
# 1,979 TFLOP/s, for dense math (NVIDIA H200 Tensor Core GPU datasheet). Lesson 2 works out that prefilling a
# 4,000-token prompt takes 2 x 70e9 x 4,000 = 5.6e14 FLOPs, 0.141 s at the pair's dense peak of
# 3.958e15 FLOP/s. No real pass reaches the peak: *the chapter assumes* 28% of it, so about **0.5 s**.
# Lesson 3 works out that each decode step reads all 70 GB: at the pair's 9.6 TB/s that takes at least
# 70e9 / 9.6e12 = 7.3 ms, and *the chapter assumes* about 7 TB/s achieved (73% of peak), so about **10 ms**.
# Both figures are the chapter's assumptions, chosen to give a round 0.5 s and 10 ms, not measurements of a
# real server; they leave out attention, the KV cache read and the all-reduce the two GPUs exchange in every
# layer under tensor parallelism. So, with no queue and a steady 10 ms gap, a 500-token reply to that prompt
# takes
#
# > T ≈ 0.5 + (500 - 1) x 0.010 = **5.49 s**.
#
# **Measured gaps.** A client sees timestamps, not formulas. If the tokens of a reply arrive at 0.50, 0.51,
# 0.52, 0.55 and 0.56 s after sending, the TTFT is 0.50 s, the gaps are 10, 10, 30 and 10 ms (one stalled
# step), and the TPOT is (0.56 - 0.50) / 4 = **15 ms**, an average no single gap had.

# %% [markdown]
# ## Three different "tokens per second"
#
# For the same 500-token request on the same replica:
#
# 1. **Steady decode rate**, 1 / ITL: how fast tokens stream once they have started. 1 / 0.010 s =
#    **100 tokens/s**.
# 2. **A request's output rate**, n_out / T: tokens delivered over the whole wait, TTFT included.
#    500 / 5.49 ≈ **91.1 tokens/s**. It is below the steady rate whenever the TTFT is longer than one gap
#    (n_out / T < 1 / ITL exactly when TTFT > ITL), as it almost always is (here 0.5 s against 10 ms), and
#    close to it only for long replies.
# 3. **A fleet's aggregate rate**: the sum of the rates of every request being served at the same time. Three
#    replicas each streaming one reply, with steady gaps of 10, 12.5 and 20 ms, give
#    100 + 80 + 50 = **230 tokens/s** in all. (Not 3 / (mean gap) ≈ 212: rates add, gaps do not.)
#
# All three are right, and they answer different questions: how fast does text stream, how long does one user
# wait per token, how much does the service produce. A benchmark's "tokens/s" means nothing until it says
# which one; two engines can be compared only on **one** definition, measured the same way.

# %% [markdown]
# ## Latency is a distribution: mean, p50, p99
#
# Requests differ (prompt lengths, reply lengths, what else the server was doing), so a service's latency is
# a distribution, summed up by its **percentiles**: p50 (the median), p90, p99. The p-th percentile is a
# value that about p% of the samples do not exceed. For few samples there are several ways to pick it, so a
# report must say which. **This lesson uses linear interpolation**, numpy's default (`numpy.percentile`,
# `method="linear"`), which vLLM's and GenAI-Perf's benchmarks use:
#
# > sort the n samples into s[0] <= s[1] <= ... <= s[n-1]; the rank is h = (n - 1) x p / 100; with
# > i = floor(h), the percentile is s[i] + (h - i) x (s[i+1] - s[i]) (just s[n-1] when i = n - 1).
#
# **Worked example.** Five requests take 300, 100, 200, 400 and 1,000 ms. Sorted: 100, 200, 300, 400, 1,000.
# p50: h = 4 x 0.5 = 2, so **300 ms**. p90: h = 4 x 0.9 = 3.6, between 400 and 1,000:
# 400 + 0.6 x 600 = **760 ms**. The mean is **400 ms**. (Nearest-rank, another common method, takes the
# sample at rank ceil(0.9 x 5) = 5 and gives 1,000 ms for the same p90: the method matters.)
#
# **Where the mean looks fine and the tail does not.** 100 requests: 98 get their first token after 0.40 s,
# two wait 6.0 s behind long prompts. The mean TTFT is (98 x 0.40 + 2 x 6.0) / 100 = **0.512 s**, under a
# target of "mean below 0.6 s". The p50 is **0.40 s**. But the p99 is **6.0 s**: one user in fifty waits 15
# times longer than the typical one. That is why service targets are written on the tail: MLPerf Inference's
# server scenario requires a 99th-percentile TTFT of at most 2 s for Llama-2-70B (mlcommons/inference,
# `loadgen/mlperf.conf`), which this service misses.
#
# **Common mistakes**
#
# - Counting n_out gaps after the first token instead of n_out - 1: the first token *ends* the TTFT.
# - Mixing milliseconds and seconds: ITLs are usually quoted in ms, formulas want seconds.
# - Quoting "tokens/s" without saying which of the three it is, or comparing one engine's fleet rate with
#   another's per-request rate.
# - Averaging gaps to get a fleet's rate: add the streams' rates instead.
# - Judging latency by its mean. The mean mixes the slow few into a number that describes no request; read
#   p50 for the typical request and p99 for the tail.
# - An off-by-one rank: with linear interpolation the rank is (n - 1) x p / 100, counted from 0.

# %% [markdown]
# ## Part 1: by hand
#
# A different deployment serves a smaller model: its TTFT is **{ttft_s} s**, its steady ITL is **{itl_ms} ms**, and a
# request asks for **{n_out}** output tokens. You may type a number or an arithmetic expression.
#
# - `latency_s`: the request's end-to-end latency T, in seconds.
# - `steady_tokens_per_s`: its steady decode rate, in tokens per second.
# - `request_tokens_per_s`: the request's output rate over its whole latency, in tokens per second, to at
#   least 1 decimal place.

# %% question="latency_s"
### STUB latency_s = None  # your answer, in seconds
### BEGIN SOLUTION
latency_s = {ttft_s} + ({n_out} - 1) * {itl_ms} / 1000  # the first token at the TTFT, then n_out - 1 gaps of {itl_ms} ms
### END SOLUTION

# %% question="steady_tokens_per_s"
### STUB steady_tokens_per_s = None  # your answer, in tokens per second
### BEGIN SOLUTION
steady_tokens_per_s = 1000 / {itl_ms}  # one token per {itl_ms} ms gap
### END SOLUTION

# %% question="request_tokens_per_s"
### STUB request_tokens_per_s = None  # your answer, in tokens per second, to 1 decimal place
### BEGIN SOLUTION
request_tokens_per_s = {n_out} / ({ttft_s} + ({n_out} - 1) * {itl_ms} / 1000)  # n_out / T
### END SOLUTION

# %% [markdown]
# Ten short requests to another deployment took these end-to-end latencies, in milliseconds:
#
# > {latencies}
#
# With the lesson's method (linear interpolation, rank h = (n - 1) x p / 100 from 0):
#
# - `mean_ms`: their mean latency, in ms.
# - `p50_ms`: their median (p50), in ms.
# - `p99_ms`: their 99th percentile, in ms.

# %% question="mean_ms"
### STUB mean_ms = None  # your answer, in ms
### BEGIN SOLUTION
mean_ms = sum([{latencies}]) / 10  # the sum over the count
### END SOLUTION

# %% question="p50_ms"
### STUB p50_ms = None  # your answer, in ms
### BEGIN SOLUTION
ordered = sorted([{latencies}])
p50_ms = (ordered[4] + ordered[5]) / 2  # h = 9 x 0.5 = 4.5: halfway between the 5th and 6th sorted values
### END SOLUTION

# %% question="p99_ms"
### STUB p99_ms = None  # your answer, in ms
### BEGIN SOLUTION
ordered = sorted([{latencies}])
p99_ms = ordered[8] + 0.91 * (ordered[9] - ordered[8])  # h = 9 x 0.99 = 8.91: between the 9th and 10th sorted values
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the arithmetic into functions. Every time is in seconds, so no unit conversion is needed inside
# them. Where a docstring says to call another function, call it by its name rather than repeating its
# formula. Stuck? Try `hint("itl_from_timestamps")`.

# %% question="request_latency"
def request_latency(ttft, itl, n_out):
    """End-to-end seconds of one request that streams n_out tokens with steady gaps.

    ttft: time to first token, in seconds. itl: the steady gap between later tokens, in seconds.
    n_out: number of output tokens, a whole number >= 1.
    Returns ttft + (n_out - 1) * itl; with n_out = 1 that is just ttft.

    Example: request_latency(0.5, 0.01, 500) -> 5.49
    """
    ### BEGIN SOLUTION
    return ttft + (n_out - 1) * itl
    ### END SOLUTION


# %% question="itl_from_timestamps"
def itl_from_timestamps(times):
    """The inter-token gaps of one request, from its tokens' arrival times.

    times: a list of the arrival times of the output tokens, in seconds since the request was sent, in
    order (times[0] is the TTFT), at least one of them.
    Returns a new list of the len(times) - 1 gaps between consecutive tokens, times[k + 1] - times[k];
    one token gives []. Do not modify times.

    Example: itl_from_timestamps([0.5, 0.75, 1.0, 1.5]) -> [0.25, 0.25, 0.5]
    """
    ### BEGIN SOLUTION
    return [later - earlier for earlier, later in zip(times, times[1:])]
    ### END SOLUTION


# %% question="output_rate"
def output_rate(n_out, ttft, itl):
    """A request's output rate: its n_out tokens divided by its whole latency, in tokens per second.

    Same arguments as request_latency (seconds, n_out >= 1). Returns n_out / request_latency(ttft, itl, n_out).
    Call request_latency (repeating its formula is right too).

    Example: output_rate(500, 0.5, 0.01) -> 91.07...
    """
    ### BEGIN SOLUTION
    return n_out / request_latency(ttft, itl, n_out)
    ### END SOLUTION


# %% question="fleet_tokens_per_second"
def fleet_tokens_per_second(itls):
    """The aggregate decode rate of requests streaming at the same time, in tokens per second.

    itls: a list with the steady gap (seconds, > 0) of each request decoding right now; it may be empty.
    Each request streams 1 / itl tokens per second; returns the sum of those rates (0.0 for no request).

    Example: fleet_tokens_per_second([0.01, 0.0125, 0.02]) -> 230.0
    """
    ### BEGIN SOLUTION
    return sum(1 / itl for itl in itls)
    ### END SOLUTION


# %% question="percentile"
def percentile(samples, p):
    """The p-th percentile of samples by linear interpolation (numpy.percentile's default method).

    samples: a non-empty list of numbers, in any order; do not modify it. p: a percentage, 0 <= p <= 100.
    Sort the samples into s; the rank is h = (len(s) - 1) * p / 100; with i = floor(h), return
    s[i] + (h - i) * (s[i + 1] - s[i]), or s[i] itself when i is the last index. Returns a float.
    p = 0 gives the smallest sample, p = 100 the largest; one sample is every percentile.

    Example: percentile([300, 100, 200, 400, 1000], 90) -> 760.0
    """
    ### BEGIN SOLUTION
    ordered = sorted(samples)  # a new list: the caller's stays as it was
    rank = (len(ordered) - 1) * p / 100
    below = int(rank)  # floor, since rank >= 0
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (rank - below) * (ordered[above] - ordered[below])
    ### END SOLUTION


# %% question="latency_summary"
def latency_summary(latencies):
    """The three numbers a latency report starts with: the tuple (mean, p50, p99).

    latencies: a non-empty list of latencies (any unit; the results are in the same unit).
    The p50 and p99 are percentile(latencies, 50) and percentile(latencies, 99): call percentile.

    Example: latency_summary([300, 100, 200, 400, 1000]) -> (400.0, 300.0, 976.0)
    """
    ### BEGIN SOLUTION
    mean = sum(latencies) / len(latencies)
    return (mean, percentile(latencies, 50), percentile(latencies, 99))
    ### END SOLUTION


# %% [markdown]
# ## Check yourself
#
# **1.** Two vendors benchmark the same 70B model on the same replica. Engine P's page says "2,300 tokens/s";
# engine Q's says "95 tokens/s". What can you conclude?
#
# - **A.** P is about 24 times faster for every user, since both pages measure tokens per second of one model on
#   one replica.
# - **B.** Nothing yet: P may count the total over many concurrent requests, Q one request's output rate;
#   measure both on one definition.
# - **C.** Q must be misconfigured: a replica that reads 70 GB per step at about 7 TB/s gives each request
#   100 tokens/s, so Q lost some speed.
# - **D.** P is cheating: no replica can go past its steady decode rate, so anything above about 100 tokens/s
#   is an error.
#
# Set `answer_compare_engines` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_compare_engines"
### STUB answer_compare_engines = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_compare_engines = "B"  # a fleet's aggregate and one request's rate are different quantities
### END SOLUTION

# %% [markdown]
# **2.** A dashboard reports, for one day's requests, a mean TTFT of 0.45 s, a p50 of 0.30 s and a p99 of
# 4.2 s. The service's target is "p99 TTFT at most 2 s". Is the target met?
#
# - **A.** Yes: the mean, 0.45 s, is far below 2 s, and a mean already counts every slow request in it.
# - **B.** Yes: the p50 shows the typical request waits 0.30 s, and a target is about the typical request.
# - **C.** No way to tell: percentiles over a single day are too noisy to hold against any target at all.
# - **D.** No: the target is on the p99, which is 4.2 s; the mean and p50 hide the slowest requests.
#
# Set `answer_tail_target` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_tail_target"
### STUB answer_tail_target = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_tail_target = "D"  # the target is written on the tail, and the tail misses it
### END SOLUTION

# %% [markdown]
# **3.** On one server, with the same TTFT and the same steady ITL, a 1,000-token reply has a much higher
# output rate n_out / T than a 10-token reply. Why?
#
# - **A.** The TTFT is paid once per request: a long reply spreads it over many tokens, so n_out / T nears 1 / ITL.
# - **B.** The server decodes faster as a reply grows, since the KV cache of the earlier tokens is already warm.
# - **C.** Long replies are batched with more requests, and the batch's aggregate rate is credited to each one.
# - **D.** A short reply has n_out gaps of ITL, not n_out - 1, so its one extra gap weighs more than a long one's.
#
# Set `answer_longer_reply` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_longer_reply"
### STUB answer_longer_reply = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_longer_reply = "A"  # TTFT is a fixed cost, amortised over the reply
### END SOLUTION

# %% [markdown]
# ## Going further
#
# - **ITL is not one thing either.** vLLM's benchmark pools *every* gap of every request into one ITL
#   distribution, so its p99 sees a single stalled step; GenAI-Perf's ITL is a per-request average (vLLM's
#   TPOT), whose p99 averages stalls away. Their means can agree while their p99s do not: compare tails only
#   from the same tool and definition.
# - **Why gaps are not steady.** Every decode step re-reads the whole KV cache, which grows by one position
#   per token (lesson 5), and a long prefill scheduled between two decode steps stalls every stream's next
#   token (lesson 4). Both show up in `itl_from_timestamps` as gaps above the steady ITL.
# - **Reasoning tokens are output tokens.** A model that reasons before it answers (a "thinking" model, an
#   agent planning its next tool call) decodes every reasoning token one step at a time, like any other output
#   token, and providers bill them as output tokens even when the user never sees them (Anthropic's "Context
#   windows" documentation says so of extended thinking tokens). At the chapter's 10 ms a token, 3,000
#   hidden reasoning tokens before a 200-token answer put 30 s before the first visible token, and the request
#   is billed for 3,200 output tokens, 16 times the visible answer's.
# - **A few samples make a noisy p99.** The p99 of 100 requests rests on the one or two slowest; report how
#   many samples a percentile came from, and its method.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
