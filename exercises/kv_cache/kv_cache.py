# %% [markdown]
# # The KV cache
#
# Every token a model has read or written leaves a key and a value vector behind in every layer, and every
# later token needs them all. In this lesson you will size that KV cache from a model's published shape, see
# how grouped-query attention shrinks it, work out how much memory is left for it once the weights are loaded,
# count the tokens and the conversations that fit, and see why every decode step reads the whole cache again.

# %% [markdown]
# ## How this notebook works
#
# - Put your answers in the **answer cells**: the ones that say `None` or `raise NotImplementedError`.
#   Keep the names exactly as given; the grader looks them up by name.
# - Cells tagged `self-check` (the setup cell just below, every `check(...)` cell, the step-through and
#   `check_all()`) are not run by the grader. **Cells marked self-check are only for you; put your answers in
#   the answer cells.**
# - Run `check("question_id")` to test one answer, `check_all()` to test them all, and `hint("question_id")`
#   when you are stuck, for example `hint("max_sequences")`.
# - Choice answers are strings such as `"A"`. Numbers are compared with a relative tolerance of 1e-6, except
#   where a question says you may round; counts of tokens and sequences must be exact whole numbers.
# - Units are decimal throughout: 1 GB = 1e9 bytes, 1 MB = 1e6 bytes, 1 TB/s = 1e12 bytes/s, 1 ms = 1e-3 s.
#   Where a GiB (2^30 = 1,073,741,824 bytes) is meant, the text says GiB.

# %% tags=["self-check"]
from grader.selfcheck import connect
check, check_all, hint = connect("kv_cache", globals())

# %% [markdown]
# ## Predict first
#
# The chapter's replica, two NVIDIA H200 GPUs with 141 GB each, holds a 70B-parameter model in FP8: 70 GB of
# weights, a quarter of its memory. Before you read on, write down two guesses:
#
# 1. How many conversations of 8,192 tokens each can the replica hold in memory at once: about 10, about 70, or
#    about 700?
# 2. A decode step reads all 70 GB of weights (lesson *Decode*). How long must a conversation grow before the
#    step reads as many bytes of KV cache as it reads of weights: about a thousand tokens, about ten thousand,
#    or more than a hundred thousand?
#
# Keep your guesses; the worked example below lets you check them.

# %% [markdown]
# ## The idea
#
# **What is stored.** Attention compares the newest token's query with the *keys* of every earlier position and
# mixes their *values*. Those keys and values do not change once computed, so an engine keeps them, the **KV
# cache**: prefill writes them for the whole prompt (lesson *Prefill*), and each decode step adds one position.
# For each position, every layer stores one key and one value vector of `head_dim` numbers for each KV head:
#
# > KV bytes per token = 2 (K and V) x layers x KV heads x head dim x bytes per value
#
# and a sequence of T positions holds T times that (lesson *Prefill*'s `kv_bytes_written(prompt_len, n_layers,
# n_kv_heads, head_dim, bytes_per_value)` is the same formula for T = prompt_len). *Assumptions:* a standard
# decoder whose every layer attends over the whole context (no sliding window), the cache kept at one precision
# (BF16 is 2 bytes per value, FP8 1), and no padding or paging overhead.
#
# **Grouped-query attention (GQA).** In classic *multi-head attention* (MHA) every query head has its own key
# and value heads, so KV heads = query heads. GQA lets a group of query heads share one KV head (Ainslie et
# al., "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints", EMNLP 2023). The
# arithmetic per token barely changes, but the cache shrinks by the ratio query heads / KV heads.
#
# **The memory budget.** The cache lives in the accelerator's memory beside the weights, and it is not the only
# other tenant: the forward pass needs room for its activations, the framework for its own buffers (the CUDA
# context, communication buffers, compiled graphs), and memory fragments. *This lesson's assumption:* a fixed
# fraction of the memory, **10%**, is kept back for all of that, and the KV cache gets what is left after the
# weights:
#
# > KV budget = memory x (1 - reserved fraction) - weight bytes   (and nothing if the weights do not fit)
#
# Engines measure instead of assuming: vLLM by default uses 90% of each GPU's memory (`gpu_memory_utilization =
# 0.90` in `vllm/engine/arg_utils.py`) for the weights, the activations' measured peak and the cache together, so
# for the same memory total its cache gets somewhat less than this lesson's estimate. The totals can differ: the
# lesson takes the datasheet's figure (141 GB for an H200), while vLLM takes 90% of what the GPU reports, and an
# H200 reports 143,771 MiB (about 150.8 GB) to `nvidia-smi`, so on a real H200 vLLM's cache can come out larger.
#
# **What fits.** The budget divided by the bytes per token, rounded *down*, is how many tokens the cache can
# hold. A sequence that may grow to a context of T tokens needs T of them, so the number of such sequences that
# fit at once is the budget divided by (bytes per token x T), rounded down. *Assumption:* each sequence is given
# room for its whole context (engines such as vLLM allocate in small pages as a sequence grows, which packs more
# short ones in; Kwon et al., "Efficient Memory Management for Large Language Model Serving with
# PagedAttention", SOSP 2023).
#
# **Why every decode step re-reads it.** To produce one token, each layer's attention reads the keys and values
# of every position in the context. So a decode step reads all the weights *and* the whole cache, and lesson
# *Decode* gave its memory-bound time:
#
# > `kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth)`
# > = (param_bytes + kv_bytes_per_token x context_len) / bandwidth
#
# The cache's share grows with the context. It reads as many bytes as the weights when kv_bytes_per_token x
# context_len = param_bytes, at a context of **param_bytes / kv_bytes_per_token** positions: there the step takes
# twice as long as the weights alone would.

# %% [markdown]
# ### Worked example: Llama-3-70B on the chapter's replica
#
# The model's shape is Llama-3-70B's: **80 layers, 64 query heads, 8 KV heads, head dimension 128** (the layers
# and heads from Meta, "The Llama 3 Herd of Models", 2024, Table 3, and `num_hidden_layers`,
# `num_attention_heads`, `num_key_value_heads` in the model's Hugging Face `config.json`; the head dimension,
# which the report's table does not give, from that `config.json`: `hidden_size` / `num_attention_heads` =
# 8192 / 64), with a context of
# 8,192 tokens (8K, the Meta-Llama-3-70B model card; Llama 3.1 extends it to 128K). Its weights are in FP8,
# 70 GB, and its cache in BF16, 2 bytes per value. The replica: two NVIDIA H200 SXM, 141 GB of HBM3e at
# 4.8 TB/s each (NVIDIA, "H200 Tensor Core GPU" datasheet, 2024).
#
# - Bytes per token: 2 x 80 x 8 x 128 x 2 = **327,680 bytes**, 0.328 MB (exactly 0.3125 MiB).
# - GQA's saving: with multi-head attention (64 KV heads, one per query head) it would be 2 x 80 x 64 x 128 x 2
#   = **2,621,440 bytes**, 2.62 MB per token: 64 / 8 = 8 times as much.
# - Memory: 2 x 141 = 282 GB on the replica (262.6 GiB). With 10% reserved, 282 x 0.9 = 253.8 GB is usable;
#   the weights take 70 GB, which leaves a KV budget of **183.8 GB** (171.2 GiB).
# - Tokens that fit: 183.8e9 / 327,680 = 560,913.09, so **560,913 tokens**, summed over every sequence held.
# - Sequences of 8,192 tokens: each needs 327,680 x 8,192 = 2,684,354,560 bytes, **2.68 GB**, which is exactly
#   2.5 GiB. 183.8e9 / 2,684,354,560 = 68.47, so **68 sequences** fit (a 69th would not have room to finish).
#   With multi-head attention only 8 would. At Llama 3.1's 128K context one sequence needs 42.9 GB, and only
#   **4** fit.
# - Re-reading it: one decode step at a context of 8,192 reads (70e9 + 2.68e9) bytes; at the replica's 9.6 TB/s
#   that is **7.57 ms**, against 7.29 ms for the weights alone: the cache is 3.7% of the bytes. (At the about 73%
#   of peak bandwidth the chapter assumes, about 10 ms, as lesson *Decode* says.)
# - When the KV read equals the weight read: 70e9 / 327,680 = **213,623 tokens**, more than even the 128K
#   context, where the cache is 61% of the weights' bytes and a step takes 11.8 ms. For one conversation the
#   weights dominate each step; lesson 6 (*Batching and throughput*) shows what happens when 68 conversations
#   share the replica and every step reads all their caches.
#
# **Common mistakes**
#
# - Query heads for KV heads: with GQA only the KV heads are stored; 64 heads would make the cache 8 times too big.
# - Forgetting the factor 2: a key *and* a value per head per layer.
# - Bits for bytes: BF16 is 2 bytes per value, FP8 1; "16" and "8" are bits.
# - GB against GiB: a sequence of 2,684,354,560 bytes is 2.68 GB but 2.5 GiB; a tool that prints "2.5" for it
#   is counting GiB. Mixing them is a 7% error, enough to admit a sequence that does not fit.
# - Rounding up the number of sequences that fit: a fraction of a sequence cannot be served.
# - Giving the KV cache all the memory: the weights come first, and activations and the framework need room too.

# %% [markdown]
# ## Check your understanding
#
# **1.** Llama-3-70B has 64 query heads but only 8 KV heads. Compared with the same model built with multi-head
# attention (as many KV heads as query heads), how big is its KV cache per token?
#
# - **A.** The same size: every one of the 64 query heads still attends over the whole context at every step, so
#   all 64 need their keys and values.
# - **B.** 8 times smaller: the cache stores only the KV heads, and 64 / 8 = 8 query heads share each of them.
# - **C.** 64 times smaller: grouped-query attention keeps a single key and value for the whole layer, whatever
#   the number of heads.
# - **D.** 2 times smaller: grouped-query attention stores only the keys, and each step recomputes the values
#   from them when it needs them.
#
# Set `answer_gqa` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_gqa"
### STUB answer_gqa = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_gqa = "B"  # only the 8 KV heads are stored; 64 / 8 = 8
### END SOLUTION

# %% [markdown]
# ## Part 1: by hand
#
# A different model and chip from the worked example (the worked example above will not give these answers).
# **{model}** has {n_layers} layers, {n_heads} query heads, {n_kv_heads} KV heads and head
# dimension {head_dim} ({card}). Take it as {params_b}e9 parameters with its weights **and** its cache in BF16 (2
# bytes per value), on **one {gpu}**: {memory_gb} GB of {memory_kind} at {tb_per_s} TB/s ({datasheet}). Each
# sequence is given room for a context of {context_text} tokens. As in the worked example, 10% of the memory is
# reserved for activations and the framework. You may type a number or an arithmetic expression.
#
# - `token_bytes`: how many **bytes** of KV cache does one token take?
# - `budget_gb`: how many **GB** (1e9 bytes) of memory are left for the KV cache?
# - `sequences_fit`: how many sequences of {context_text} tokens fit in that budget at once (a whole number)?
# - `even_context`: at what context, in tokens, does one decode step read as many bytes of KV cache as of
#   weights? You may round to 3 significant figures.

# %% question="token_bytes"
### STUB token_bytes = None  # your answer, in bytes
### BEGIN SOLUTION
token_bytes = 2 * {n_layers} * {n_kv_heads} * {head_dim} * 2  # K and V, every layer, every KV head, BF16
### END SOLUTION

# %% question="budget_gb"
### STUB budget_gb = None  # your answer, in GB
### BEGIN SOLUTION
budget_gb = {memory_gb} * 0.9 - {params_b}e9 * 2 / 1e9  # usable memory minus the BF16 weights
### END SOLUTION

# %% question="sequences_fit"
### STUB sequences_fit = None  # your answer, a whole number
### BEGIN SOLUTION
sequences_fit = int(({memory_gb}e9 * 0.9 - {params_b}e9 * 2) // (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2 * {context}))  # rounded down
### END SOLUTION

# %% question="even_context"
### STUB even_context = None  # your answer, in tokens
### BEGIN SOLUTION
even_context = {params_b}e9 * 2 / (2 * {n_layers} * {n_kv_heads} * {head_dim} * 2)  # weight bytes / KV bytes per token
### END SOLUTION

# %% [markdown]
# ## Part 2: in code
#
# Now turn the arithmetic into functions. Sizes are in bytes, bandwidths in bytes per second, times in seconds,
# and counts of tokens and sequences are whole numbers, so no unit conversion is needed inside the functions.
# Where a docstring says to call another function, call it by its name rather than repeating its formula.
# Stuck? Try `hint("kv_budget_bytes")`.

# %% question="kv_bytes_per_token"
def kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_value):
    """Bytes of KV cache one token (one position) takes, over all layers.

    Every layer stores a key and a value vector of head_dim values for each KV head (not each query head).
    The arguments are in the order of lesson Prefill's kv_bytes_written, without its prompt_len.
    Returns 2 * n_layers * n_kv_heads * head_dim * bytes_per_value, in bytes.

    Example: kv_bytes_per_token(80, 8, 128, 2) -> 327680
    """
    ### BEGIN SOLUTION
    return 2 * n_layers * n_kv_heads * head_dim * bytes_per_value
    ### END SOLUTION


# %% question="kv_budget_bytes"
def kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction):
    """Bytes of memory left for the KV cache once the weights are loaded.

    memory_bytes: the accelerators' memory, in bytes. param_bytes: the weights, in bytes. reserved_fraction:
    the fraction of memory_bytes kept back for activations and the framework, 0 <= reserved_fraction < 1
    (0.1 is 10%). Returns memory_bytes * (1 - reserved_fraction) - param_bytes; if that is negative (the weights
    do not fit), there is no room for a cache: return 0.0.

    Example: kv_budget_bytes(282e9, 70e9, 0.1) -> 183800000000.0
    """
    ### BEGIN SOLUTION
    return max(0.0, memory_bytes * (1 - reserved_fraction) - param_bytes)
    ### END SOLUTION


# %% question="max_tokens"
def max_tokens(budget_bytes, kv_bytes_per_token):
    """How many tokens' KV cache fit in budget_bytes: a whole number, rounded down (a token fits whole or not).

    Returns the largest whole number n with n * kv_bytes_per_token <= budget_bytes, as an int.

    Example: max_tokens(183.8e9, 327680) -> 560913
    """
    ### BEGIN SOLUTION
    return int(budget_bytes // kv_bytes_per_token)
    ### END SOLUTION


# %% question="max_sequences"
def max_sequences(budget_bytes, kv_bytes_per_token, context_len):
    """How many sequences of context_len tokens each fit in budget_bytes at once, each given room for its whole
    context: a whole number, rounded down (part of a sequence cannot be served).

    context_len is a whole number >= 1. Returns max_tokens(budget_bytes, kv_bytes_per_token) // context_len,
    as an int. Call max_tokens.

    Example: max_sequences(183.8e9, 327680, 8192) -> 68
    """
    ### BEGIN SOLUTION
    return max_tokens(budget_bytes, kv_bytes_per_token) // context_len
    ### END SOLUTION


# %% question="kv_step_seconds"
def kv_step_seconds(param_bytes, kv_bytes_per_token, context_len, bandwidth):
    """Seconds for one decode step that reads all the weights plus the KV cache of context_len positions (the
    same function as in lesson Decode).

    kv_bytes_per_token: bytes of KV cache per position. context_len: positions in the cache, a whole number >= 0.
    Memory-bound: the time to read the bytes at bandwidth bytes per second. Returns
    (param_bytes + kv_bytes_per_token * context_len) / bandwidth, in seconds.

    Example: kv_step_seconds(70e9, 327680, 8192, 9.6e12) -> 0.007571...
    """
    ### BEGIN SOLUTION
    return (param_bytes + kv_bytes_per_token * context_len) / bandwidth
    ### END SOLUTION


# %% [markdown]
# ## Step through it
#
# Run the next cell to see the replica's memory filling as the context each conversation may reach grows, from
# 1K to 128K tokens: the GB one sequence needs, how many fit, and how long one decode step takes for one
# sequence at that context (with the share of its bytes that is KV cache). It uses **your** Part 2 functions, so
# it shows what they compute. With matplotlib it also draws the curve; without it the table is all there is.
# Like every `self-check` cell, the grader never runs it. Its code is folded away: click the bar to the left of
# the cell to see it.

# %% tags=["self-check"] jupyter={"source_hidden": true}
def _memory_filling(memory_bytes=282e9, param_bytes=70e9, reserved_fraction=0.1, bandwidth=9.6e12):
    """The replica's KV cache as the context grows, from the learner's own Part 2 functions; a table, and a plot
    where matplotlib is installed."""
    contexts = [1024 * 2**k for k in range(8)]  # 1K .. 128K tokens
    try:
        per_token = kv_bytes_per_token(80, 8, 128, 2)
        budget = kv_budget_bytes(memory_bytes, param_bytes, reserved_fraction)
        rows = [(t, per_token * t, max_sequences(budget, per_token, t),
                 kv_step_seconds(param_bytes, per_token, t, bandwidth)) for t in contexts]
    except (NameError, NotImplementedError):
        print("Write kv_bytes_per_token, kv_budget_bytes, max_tokens, max_sequences and kv_step_seconds in Part 2,")
        print("then run this cell again.")
        return
    except Exception as err:
        print(f"One of your Part 2 functions raised {type(err).__name__}: {err}. check_all() says which.")
        return
    print(f"Llama-3-70B shape, BF16 cache, {param_bytes / 1e9:g} GB of FP8 weights, {memory_bytes / 1e9:g} GB with "
          f"{reserved_fraction:.0%} reserved: KV budget {budget / 1e9:.4g} GB")
    print(f"{'context':>8}  {'GB per sequence':>15}  {'sequences':>9}  {'step ms':>8}  {'KV share':>8}  fit")
    most = max(max(int(r[2]) for r in rows), 1)
    for t, seq_bytes, fit, step in rows:
        share = seq_bytes / (param_bytes + seq_bytes)
        bar = "#" * max(1 if fit else 0, round(50 * int(fit) / most))
        print(f"{t // 1024:>7}K  {seq_bytes / 1e9:>15.3g}  {fit:>9}  {step * 1e3:>8.3g}  {share:>8.1%}  {bar}")
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, left = plt.subplots(figsize=(7, 3.5))
    left.plot(contexts, [r[2] for r in rows], "o-", label="sequences that fit")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("context per sequence (tokens; 1K = 1,024)")
    left.set_ylabel("sequences that fit")
    right = left.twinx()
    right.plot(contexts, [r[3] * 1e3 for r in rows], "s--", color="tab:red", label="one step (ms)")
    right.set_ylabel("one decode step (ms)")
    fig.legend(loc="upper center")
    plt.show()


_memory_filling()

# %% [markdown]
# ## Check yourself
#
# **2.** A monitoring tool says one 8,192-token sequence of the worked example holds "2.5" of KV cache, and the
# worked example says 2.68 GB. Which is right?
#
# - **A.** The tool: the worked example counted a key and a value, and the values of a layer are not stored
#   separately in the cache.
# - **B.** The worked example: the tool has left out the weights, which are read at every step along with the cache.
# - **C.** Both: 2,684,354,560 bytes is 2.68 GB and exactly 2.5 GiB; the tool counts in GiB (2^30 bytes).
# - **D.** Neither: with 8 KV heads the cache holds 8 times less than both say, about 0.34 GB per sequence.
#
# Set `answer_gib` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_gib"
### STUB answer_gib = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_gib = "C"  # 2^30 bytes per GiB: 2.684e9 / 1.073741824e9 = 2.5
### END SOLUTION

# %% [markdown]
# **3.** The worked example's engine stores its KV cache in FP8 (1 byte per value) instead of BF16, and keeps
# the weights and the memory as they were. What happens to the number of 8,192-token sequences that fit, and to
# the context at which one step reads as many bytes of cache as of weights?
#
# - **A.** Both stay the same: the weights take most of the replica's memory and most of every step's bytes,
#   and they have not changed.
# - **B.** The sequences about double; the context stays the same, since it depends only on the weights, which
#   have not changed size.
# - **C.** The sequences about double, but the context halves, since each step now reads its smaller cache
#   twice as fast as before.
# - **D.** Both about double: half the bytes per token, so twice the tokens fit, and twice the context is needed
#   to match the weights.
#
# Set `answer_fp8_cache` to `"A"`, `"B"`, `"C"` or `"D"`.

# %% question="answer_fp8_cache"
### STUB answer_fp8_cache = None  # "A", "B", "C" or "D"
### BEGIN SOLUTION
answer_fp8_cache = "D"  # half the bytes per token: the budget and the weights both stretch twice as far
### END SOLUTION

# %% [markdown]
# ## Going further
#
# - **Paging.** Reserving a sequence's whole context up front wastes the room it has not used yet. vLLM's
#   PagedAttention allocates the cache in blocks of a few tokens as each sequence grows, so the budget is shared
#   by the tokens actually held (Kwon et al., SOSP 2023): the count that matters then is `max_tokens`, not
#   `max_sequences`.
# - **Smaller caches.** Besides GQA: multi-query attention (one KV head for all query heads; Shazeer, "Fast
#   Transformer Decoding: One Write-Head is All You Need", 2019), an FP8 cache (half of BF16), and a sliding
#   window that keeps only the last few thousand positions: in every layer (Mistral 7B keeps 4,096 in all of
#   them; Jiang et al., "Mistral 7B", 2023), or in every other layer, the rest attending over the whole context
#   (Gemma 2 alternates local sliding-window and global layers; Gemma Team, "Gemma 2", 2024).
# - **Whose GB?** Memory chips come in powers of two, so a GPU sold as "80 GB" holds about 80 GiB: nvidia-smi
#   reports an H100 80GB as 81,559 MiB, about 85.5 GB. This lesson reads the datasheets' figures as decimal GB,
#   which is on the safe side; what matters is to convert once, and never to compare a GB with a GiB.
# - **Tensor parallelism.** On the replica each GPU holds half the KV heads (4 of 8) and half the weights, so the
#   two halves of the budget fill together; the totals above are the pair's.
#
# ## Takeaway
#
# The KV cache costs 2 x layers x KV heads x head dim x bytes per value for every token of every sequence, and
# grouped-query attention divides it by the number of query heads per KV head. It gets the memory left after the
# weights and what activations and the framework need; that budget, not the arithmetic, decides how many long
# conversations a replica can hold. Every decode step reads it all again, so its share of the step grows with the
# context, reaching the weights' own bytes at param_bytes / kv_bytes_per_token positions.

# %% include="chapter"

# %% [markdown]
# ## All together
#
# Run the next cell to check every answer at once. The grader will run your answer cells from top to bottom, so
# make sure the notebook works after *Kernel > Restart & Run All*.

# %% tags=["self-check"]
check_all()
