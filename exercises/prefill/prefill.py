# %% [markdown]
# # Prefill: the whole prompt in one pass
#
# Before a model writes its first token it reads the whole prompt. In this lesson you will count the arithmetic
# of that first pass, see why it keeps the accelerator's arithmetic units busy where decode leaves them waiting
# for memory, estimate the time to first token (TTFT) from a datasheet, and size the KV cache the pass writes.

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell and `check_all()`) are not
#   run by the grader. **Cells marked self-check are only for you; put your answers in the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("ttft_seconds")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6, except
#   where a question says you may round.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 TB/s = 1e12 bytes/s, 1 TFLOP/s = 1e12 FLOP/s,
#   1 ms = 1e-3 s. Where a GiB (2^30 bytes) is meant, the text says GiB.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("prefill", globals())

# %% [markdown]
# ## Predict first
#
# The chapter's replica (below) decodes a 70B-parameter model at about 10 ms per output token, the time to
# read all its weights once (lesson *Decode*). Before you read on, write down a guess:
#
# 1. How long will the same replica take to read a 4,000-token prompt before it can write the first token?
#    About 4,000 x 10 ms = 40 s, about 10 ms, or something in between?
# 2. What limits that time: the memory bandwidth, as in decode, or the arithmetic?
#
# Keep your guesses; the next section lets you check them.

# %% [markdown]
# ## The idea
#
# **Prefill** is the first phase of a request: the model runs once over all L prompt tokens together, writes
# their keys and values into the KV cache, and emits the first output token. Every prompt position is known in
# advance, so none has to wait for another; decode, which follows, must go one token at a time.
#
# **The arithmetic.** A dense model with N parameters does about 2 FLOPs per parameter for each token it
# processes (one multiply and one add per weight): about **2·N FLOPs per token**, so about **2·N·L FLOPs** for
# an L-token prompt (Kaplan et al., "Scaling Laws for Neural Language Models", 2020, §2.1: C_forward ≈ 2N plus
# an attention term). *Assumptions:* a dense model (every weight used for every token), and attention's own
# term left out: comparing each position with the earlier ones adds about 2 x layers x L^2 x (attention width)
# FLOPs, which grows with L^2 and is small for prompts of a few thousand tokens (a few percent below).
#
# **Why prefill keeps the arithmetic busy.** The pass reads each weight from memory once and uses it for all L
# tokens. At b bytes per parameter it reads about N x b bytes and does 2·N·L FLOPs, an **arithmetic intensity**
# of about 2·N·L / (N·b) = **2L / b FLOPs per byte**. *Assumption:* only the weights are counted; the
# activations and the KV cache written add bytes, which matters little for long prompts. A chip keeps its
# arithmetic units busy only when each byte feeds at least its **ridge point** of FLOPs, peak FLOP/s divided by
# memory bandwidth (Williams, Waterman and Patterson, "Roofline", Communications of the ACM, 2009). Prefill is
# **compute-bound once 2L / b exceeds the ridge point**; a single decode step (L = 1) has an intensity of
# only 2 / b, and waits for memory.
#
# **Time to first token.** When prefill is compute-bound,
#
# > TTFT ≈ prefill FLOPs / (peak FLOP/s x utilisation)
#
# where the *utilisation* (model FLOP utilisation, MFU; Chowdhery et al., "PaLM", 2022) is the fraction of the
# peak the pass really achieves. *Assumptions:* compute-bound; the first output token comes out of this pass
# (its last position's logits), so nothing else is computed; what a server's measured TTFT adds to it, waiting
# in a queue, tokenizing the prompt, sampling and detokenizing the token and the network, is left out.
#
# **The KV cache written.** For every prompt position and every layer, prefill stores a key and a value vector
# for each KV head. With grouped-query attention a model has fewer KV heads than query heads, and only the KV
# heads are stored:
#
# > KV bytes = 2 (K and V) x layers x KV heads x head dim x bytes per value x L
#
# ### Worked example: the chapter's replica
#
# Every lesson of this chapter uses one replica: **two NVIDIA H200 SXM GPUs** with tensor parallelism,
# serving a **70B-parameter model in FP8** (N = 70e9, 1 byte per weight, 70 GB of weights). NVIDIA's H200
# datasheet gives each GPU 141 GB of HBM3e at 4.8 TB/s and "3,958 TFLOPS" of FP8, a figure marked *with
# sparsity*: dense math, which a dense model uses, runs at half of it, 1,979 TFLOP/s per GPU (NVIDIA, "H200
# Tensor Core GPU" datasheet, 2024). The pair has 2 x 4.8 = 9.6 TB/s and 2 x 1,979 = 3,958 TFLOP/s of dense FP8.
# Take a prompt of L = 4,000 tokens.
#
# - FLOPs: 2 x 70e9 x 4,000 = **5.6e14 FLOPs**.
# - Intensity: 2 x 4,000 / 1 = **8,000 FLOPs per byte**. The ridge point is 1.979e15 / 4.8e12 ≈ **412 FLOPs
#   per byte** per GPU (the same for the pair, 3.958e15 / 9.6e12): the prompt sits about 19 times above it,
#   so this prefill is compute-bound. Any prompt longer than 412 x 1 / 2 ≈ 206 tokens is, on this replica.
# - TTFT: at 100% of the dense peak, 5.6e14 / 3.958e15 ≈ **0.141 s**. No real pass reaches the peak (for
#   comparison only: PaLM's 46.2% MFU is a *training* figure, Chowdhery et al., 2022), and a prefill split over
#   two GPUs also waits for their all-reduce in every layer. This chapter *assumes* **28% utilisation**, a
#   figure chosen to give the "about 0.5 s" of the Decode lesson's check-yourself question, not a measurement:
#   5.6e14 / (3.958e15 x 0.28) ≈ **0.51 s**. Reading the 70 GB of weights once takes only
#   70e9 / 9.6e12 ≈ 7.3 ms, which is why each decode step, which reads them all for one token, takes about
#   10 ms at the 73% of that bandwidth the chapter likewise assumes, while prefill's time is set by arithmetic.
# - Attention, left out above: 2 x 80 layers x 4,000^2 x 8,192 ≈ 2.1e13 FLOPs, about **3.7%** of 5.6e14 (80
#   layers and an attention width of 8,192 are Llama-3-70B's). At 32,000 tokens it would be about 30%: for long
#   prompts, add it.
# - KV cache: the 70B model's shape is Llama-3-70B's, 80 layers, 8 KV heads (of 64 query heads) and head
#   dimension 128 (the layers and heads from Meta, "The Llama 3 Herd of Models", 2024, Table 3, and
#   `num_hidden_layers`, `num_key_value_heads` in the model's Hugging Face `config.json`; the head dimension
#   from that `config.json`, `hidden_size` / `num_attention_heads` = 8192 / 64). With the cache in BF16 (2 bytes per value): 2 x 80 x 8 x 128 x 2 = 327,680 bytes per
#   token, and x 4,000 tokens = **1.31 GB** written (1.22 GiB).
#
# **Common mistakes**
#
# - Forgetting the factor 2: a weight costs a multiply *and* an add, 2 FLOPs per token, not 1.
# - Using the datasheet's headline FLOP/s as is: H100 and H200 tables print FP8 and BF16 rates *with sparsity*
#   (marked with an asterisk); a dense model gets half.
# - Bits for bytes: FP8 is 1 byte per value, BF16 2; "8" and "16" are bits.
# - GB against GiB: 1.31e9 bytes is 1.31 GB but 1.22 GiB; this course uses GB unless it says GiB.
# - The KV cache with K or V only (it is both: the factor 2), with the layers left out, or with the query heads
#   where the model stores only its KV heads.

# %% [markdown]
# ## Check your understanding
#
# **1.** A chat client sends a prompt of a single token to the chapter's replica. Is that prefill compute-bound?
#
# - **A.** Yes: prefill always handles the whole prompt in a single pass, and a single pass is always limited by
#   the accelerator's arithmetic rate.
# - **B.** No: one token does about 2 FLOPs per weight read, an intensity of 2 / b, far below the ridge point of
#   412: it waits for memory.
# - **C.** Yes: at 1 byte per weight the intensity is 2 x 4,000 = 8,000 FLOPs per byte, nearly twenty times
#   the H200's ridge point of 412 FLOPs per byte.
# - **D.** No: a one-token prompt does no arithmetic at all, since its keys and values are already stored in
#   the KV cache before prefill starts.
#
# Set `answer_one_token` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_one_token"
### STUB answer_one_token = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_one_token = "B"  # intensity 2 / b = 2 FLOPs per byte at FP8, far below the ridge point
### END SOLUTION

# %% [markdown]
# ## Part 1: by hand
#
# A different model and chip from the worked example. A model with N = {params_b}e9 parameters (about the size of
# {model}) is stored in FP8 (1 byte per parameter) and runs on **one** {gpu}. The {datasheet} datasheet
# lists "{fp8_quote}", marked *with sparsity*, and a memory bandwidth of {bandwidth_text}. The
# prompt has L = {prompt_text} tokens. You may type a number or an arithmetic expression.
#
# - `prompt_flops`: how many FLOPs does this prefill do (2 FLOPs per parameter per token; attention left out)?
# - `prompt_intensity`: how many FLOPs per byte of weights read does it do (each weight read once)?
# - `ttft_ms`: its time to first token in **milliseconds**, at 40% utilisation of the {gpu_short}'s dense FP8 peak,
#   queueing left out. You may round to 3 significant figures.
# - `kv_gb`: how many **GB** of KV cache it writes, for {model}'s shape: {layers} layers, {kv_heads} KV heads (of {q_heads} query
#   heads), head dimension {head_dim} ({model_source}), with the cache in FP8 (1 byte per value). You may round
#   to 3 significant figures.

# %% question="prompt_flops"
### STUB prompt_flops = None  # your answer, in FLOPs
### BEGIN SOLUTION
prompt_flops = 2 * {params_b}e9 * {prompt_len}  # 2 FLOPs per parameter per token
### END SOLUTION

# %% question="prompt_intensity"
### STUB prompt_intensity = None  # your answer, in FLOPs per byte
### BEGIN SOLUTION
prompt_intensity = 2 * {prompt_len} / 1  # 2L / b
### END SOLUTION

# %% question="ttft_ms"
### STUB ttft_ms = None  # your answer, in milliseconds
### BEGIN SOLUTION
ttft_ms = 2 * {params_b}e9 * {prompt_len} / ({sparse_tflops}e12 / 2 * 0.4) * 1000  # dense FP8 is half the sparse headline
### END SOLUTION

# %% question="kv_gb"
### STUB kv_gb = None  # your answer, in GB
### BEGIN SOLUTION
kv_gb = 2 * {layers} * {kv_heads} * {head_dim} * 1 * {prompt_len} / 1e9  # K and V, every layer, every KV head, every position
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the arithmetic into functions. Parameters are counted one by one (70e9, not 70), sizes are in bytes,
# rates in FLOP/s and bytes per second, and times in seconds, so no unit conversion is needed inside the
# functions. Where a docstring says to call another function, call it by its name rather than repeating its
# formula. Stuck? Try `hint("is_compute_bound")`.

# %% question="prefill_flops"
def prefill_flops(n_params, prompt_len):
    """FLOPs of one prefill pass over a prompt of prompt_len tokens, for a dense model of n_params parameters.

    About 2 FLOPs per parameter per token (a multiply and an add per weight); attention's own term is left out.
    prompt_len is a whole number >= 1. Returns 2 * n_params * prompt_len.

    Example: prefill_flops(70e9, 4000) -> 5.6e14
    """
    ### BEGIN SOLUTION
    return 2 * n_params * prompt_len
    ### END SOLUTION


# %% question="prefill_intensity"
def prefill_intensity(prompt_len, bytes_per_param):
    """Arithmetic intensity of a prefill pass: FLOPs per byte of weights read.

    Each weight is read once and used for all prompt_len tokens: 2 FLOPs per parameter per token, over
    bytes_per_param bytes per parameter (FP8: 1, BF16: 2, 4-bit: 0.5). Activations and KV traffic are left out.
    Returns 2 * prompt_len / bytes_per_param.

    Example: prefill_intensity(4000, 1) -> 8000.0
    """
    ### BEGIN SOLUTION
    return 2 * prompt_len / bytes_per_param
    ### END SOLUTION


# %% question="ridge_point"
def ridge_point(peak_flops, bandwidth):
    """A chip's ridge point: the FLOPs per byte above which its arithmetic, not its memory, sets the time.

    peak_flops: the dense peak arithmetic rate, in FLOP/s (already halved if the datasheet's figure was with
    sparsity). bandwidth: memory bandwidth, in bytes per second. Returns peak_flops / bandwidth.

    Example: ridge_point(1.979e15, 4.8e12) -> 412.291...
    """
    ### BEGIN SOLUTION
    return peak_flops / bandwidth
    ### END SOLUTION


# %% question="is_compute_bound"
def is_compute_bound(prompt_len, bytes_per_param, peak_flops, bandwidth):
    """Whether a prefill of prompt_len tokens is compute-bound on a chip with this dense peak and bandwidth.

    True if prefill_intensity(prompt_len, bytes_per_param) is greater than ridge_point(peak_flops, bandwidth),
    else False. At the ridge point exactly, arithmetic and memory take the same time: that is False (not yet
    compute-bound). Return a bool. Call prefill_intensity and ridge_point (repeating their formulas is right too).

    Example: is_compute_bound(4000, 1, 1.979e15, 4.8e12) -> True
    """
    ### BEGIN SOLUTION
    return prefill_intensity(prompt_len, bytes_per_param) > ridge_point(peak_flops, bandwidth)
    ### END SOLUTION


# %% question="ttft_seconds"
def ttft_seconds(n_params, prompt_len, peak_flops, utilisation):
    """Time to first token, in seconds, of a compute-bound prefill.

    peak_flops: the dense peak, in FLOP/s. utilisation: the fraction of it the pass achieves, 0 < utilisation <= 1
    (0.28 is 28%). Queueing, tokenization, sampling, detokenization and the network are left out.
    Returns prefill_flops(n_params, prompt_len) / (peak_flops * utilisation). Call prefill_flops.

    Example: ttft_seconds(70e9, 4000, 3.958e15, 0.28) -> 0.505...
    """
    ### BEGIN SOLUTION
    return prefill_flops(n_params, prompt_len) / (peak_flops * utilisation)
    ### END SOLUTION


# %% question="kv_bytes_written"
def kv_bytes_written(prompt_len, n_layers, n_kv_heads, head_dim, bytes_per_value):
    """Bytes of KV cache a prefill writes for prompt_len positions.

    Every layer stores a key and a value vector of head_dim values for each KV head (not each query head) at
    each position. Returns 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len, in bytes.

    Example: kv_bytes_written(4000, 80, 8, 128, 2) -> 1310720000
    """
    ### BEGIN SOLUTION
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value * prompt_len
    ### END SOLUTION


# %% [markdown]
# ## Check yourself
#
# **2.** Two teammates estimate the TTFT of the same 4,000-token prefill on the chapter's replica, both at 28%
# utilisation. One gets exactly half the other's time. Which slip explains a factor of exactly 2?
#
# - **A.** One took the pair's FP8 peak as 2 x 3,958 TFLOP/s, the datasheet's figure with sparsity, where dense
#   math runs at 1,979 per GPU.
# - **B.** One converted the 70 GB of weights to GiB before dividing, and that binary prefix alone halves the
#   estimated time to first token.
# - **C.** One added attention's quadratic term, which for a prompt of any length exactly doubles the FLOPs that
#   the pass has to do.
# - **D.** One counted both K and V in the KV cache written, and writing that cache to memory takes exactly as
#   long as the arithmetic.
#
# Set `answer_factor_two` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_factor_two"
### STUB answer_factor_two = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_factor_two = "A"  # the sparse headline is twice the dense rate, so the time comes out half
### END SOLUTION

# %% [markdown]
# **3.** The prompt doubles, from 4,000 to 8,000 tokens, on the same replica (it stays compute-bound). What
# happens to the TTFT and to the KV cache written?
#
# - **A.** The TTFT stays about the same, since prefill reads the weights only once whatever the prompt's
#   length; the KV cache written doubles.
# - **B.** Both stay the same: prefill is one pass over the prompt, so a longer prompt costs no extra time and
#   no extra memory.
# - **C.** The TTFT doubles, but the KV cache written stays the same, because the cache keeps one entry per
#   layer rather than per token.
# - **D.** Both about double: the FLOPs grow as 2·N·L and the cache holds every position; the TTFT a little
#   more, as attention grows as L^2.
#
# Set `answer_longer_prompt` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_longer_prompt"
### STUB answer_longer_prompt = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_longer_prompt = "D"  # FLOPs and KV bytes are both proportional to L (attention adds a little more)
### END SOLUTION

# %% [markdown]
# ## Going further
#
# - **Chunked prefill.** A 0.5 s prefill on a replica that is also decoding other requests delays every one of
#   their next tokens by that long. Engines split a long prompt into chunks scheduled between decode steps
#   (Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", OSDI 2024). Each
#   chunk must stay long enough to stay above the ridge point (about 206 tokens here), or it reads all the
#   weights for little arithmetic. Lesson *Prefill vs decode on one accelerator* works this out.
# - **Where the formula stops.** At 32,000 tokens attention's term is about 30% of 2·N·L: long-context prefill
#   costs more than 2·N·L, and its attention reads and writes a KV cache eight times the size of the
#   worked example's.
#
# ## Takeaway
#
# Prefill does 2·N FLOPs per prompt token but reads the weights only once for the whole prompt, so beyond a few
# hundred tokens its time is set by arithmetic: TTFT ≈ 2·N·L / (dense peak x utilisation), about half a second
# for 4,000 tokens of a 70B model on two H200s. It also writes the KV cache for every prompt position, which
# every later decode step reads again.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
