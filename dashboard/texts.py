"""Short explanatory texts and formulas, kept apart from layout so pages stay thin."""

APP_NAME = "Speculative Decoding Explorer"

INTRO = (
    "Speculative decoding makes a large **target** model generate faster without changing what "
    "it generates. A small **draft** model proposes *k* tokens; the target scores all of them in "
    "one forward pass and keeps each with probability min(1, p/q), in order. At the first "
    "rejection it resamples from a residual distribution, and if all *k* pass it adds one token "
    "of its own. The output is distributed **exactly** as the target's: the speedup is free."
)

#: What "the chapter" is; the home page says it under its views.
CHAPTER = (
    '"The chapter" on these pages is the text this tool was built from: *Speculative Decoding '
    "Math: Algorithms & Speedup Limits*, a chapter of the Language AI Handbook, whose formulas, "
    "optimal-k table and α-vs-KL experiment the pages reproduce."
)

CONVENTIONS = (
    "**Conventions.** p is the target distribution, q the draft's; α = Σ min(p, q) is the "
    "acceptance rate; *k* the draft length; c = target step time / draft step time (c = 20: the "
    "draft runs 20× faster). Leviathan et al. (2023) call the inverse, draft/target, “c”."
)

FORMULAS = {
    "acceptance": r"\alpha = \sum_x \min\bigl(p(x), q(x)\bigr) = 1 - \mathrm{TV}(p, q)",
    "expected_tokens": r"\mathbb{E}[N] = \sum_{i=0}^{k} \alpha^i = \frac{1 - \alpha^{k+1}}{1 - \alpha}",
    "speedup": r"S(\alpha, k, c) = \frac{\mathbb{E}[N]}{1 + k/c} = \frac{(1 - \alpha^{k+1})/(1 - \alpha)}{1 + k/c}",
    "optimal_k": r"k^\ast = \min \operatorname*{arg\,max}_{1 \le k \le k_{\max}} S(\alpha, k, c)",
    "residual": r"r(x) = \frac{\max\bigl(0,\, p(x) - q(x)\bigr)}{\sum_y \max\bigl(0,\, p(y) - q(y)\bigr)}",
    "lossless": r"\underbrace{\min(p, q)}_{\text{accepted}} + \underbrace{(1 - \alpha)\, r}_{\text{resampled}} = p",
    "general_speedup": r"S = \frac{\mathbb{E}[N]\; T_t(1)}{D(k) + T_t(k+1)}",
    # The drafting time of each drafter kind.
    "drafting": r"D(k) = \begin{cases} k\, T_d(1) & \text{sequential} \\ T_d(k) & \text{parallel} \\ "
    r"t_{\text{lookup}} & \text{model-free} \end{cases}",
    # The roofline with tensor parallelism, line by line: narrow enough for a 1024-pixel screen.
    "roofline": r"T(w) = \max\bigl(M(w),\, C(w)\bigr) + 2L\, t_{\text{all-reduce}}(w) + \text{overhead}",
    "roofline_memory": r"M(w) = \frac{W(\text{batch}\cdot w)/\text{tp} + \text{KV}/\min(\text{tp}, h_{kv})}"
    r"{\text{bandwidth}}",
    "roofline_experts": r"W(T) = \bigl(P_{\text{dense}} + L_e\, E\,(1 - (1 - k_e/E)^T)\, P_e\bigr)\, b",
    "roofline_compute": r"C(w) = \frac{2 P_{\text{active}}\; w \cdot \text{batch}}{\text{tp} \cdot \text{peak}}",
    "pinsker": r"\alpha \ge 1 - \sqrt{\mathrm{KL}(p \,\|\, q) / 2} \quad \text{(Pinsker)}",
    "bretagnolle_huber": r"\alpha \ge 1 - \sqrt{1 - e^{-\mathrm{KL}(p \,\|\, q)}} \quad \text{(Bretagnolle–Huber)}",
}

SPEEDUP_EXPLAINER = (
    "Each iteration costs *k* draft steps and one target step, 1 + k/c target-step units, and "
    "yields E[N] tokens: the accepted prefix plus the one token the target always adds. Longer "
    "drafts cost linearly but pay geometrically less, so each curve has a peak (★). Below the "
    "dashed line speculation is slower than plain decoding."
)

PUBLISHED_EXPLAINER = (
    "**Why a measured point can sit off its curve.** Each curve is the i.i.d. formula: every "
    "draft position accepted independently at one rate α, here the paper's mean. Real acceptance "
    "varies with the context: boilerplate, copied spans and predictable code are accepted in long "
    "runs, hard tokens rarely. Tokens per call, E[N] = (1 − α^(k+1))/(1 − α) = 1 + α + … + α^k, "
    "are a **convex** function of α (strictly, for k ≥ 2), so by Jensen's inequality their mean "
    "over contexts exceeds their value at the mean α: easy and hard stretches mixed yield more "
    "tokens per target call than a steady stream at the same average rate, and the measured "
    "speedup can sit **above** the curve. It sits **below** when the formula's costs are too "
    "kind: verifying k + 1 positions costs more than one plain step, sampling, the acceptance "
    "test, KV-cache bookkeeping and kernel launches add overhead to every iteration, and the "
    "speculative code path may be less tuned than the baseline it is timed against. Leviathan "
    "et al.'s twelve T5-XXL results, at their own α, γ and c, land between 0.68 and 1.29 times "
    "the curve."
)

#: Above the published points' explainer: what the points are. ``{sources}`` lists them by source.
PUBLISHED_SHOWN = (
    "**The points** are the published measurements with a fixed draft length, drawn at (k, "
    "measured speedup): {sources}. Each was measured at its paper's own α and c, **not at yours**: "
    "hover a point for its citation, the c it was measured at and the i.i.d. formula at its own "
    "α, k and c, the curve it should be compared with."
)

#: Over the table of published results without a draft length.
PUBLISHED_WITHOUT_K = (
    "**Not drawn against k.** These methods draft trees, n-grams or retrieved spans of varying "
    "length: they have no fixed draft length k and the source gives no α, so they have no place "
    "on this chart. Their tokens per target call are the chapter's E[N] (1.00 for plain decoding); "
    "the speedup is what that buys after the cost of drafting and verifying."
)

EXERCISES_INTRO = (
    "Exercises for a workshop. Each link opens a page set up for its question: try it there, then "
    "come back (Back returns here) and open the answer. Every number in an answer is computed by "
    "specmath when this page is drawn, from the settings its link opens."
)

OPTIMAL_K_EXPLAINER = (
    "One broadcast `optimal_k` call over a 101 × 101 grid. The best draft length grows with both "
    "α (drafts survive longer) and c (drafting is cheaper); where the best speedup is below 1, "
    "no draft length pays."
)

SAMPLING_EXPLAINER = (
    "Each round drafts x ~ q and keeps it with probability min(1, p(x)/q(x)); otherwise it draws "
    "a replacement from the residual r. Tokens the draft over-proposes (q > p) are thinned to p; "
    "tokens it under-proposes (q < p) are topped up by the residual, so the stacked bars land on "
    "p's ticks for every pair, including disjoint supports and q = 0 where p > 0."
)

KL_EXPLAINER = (
    "The chapter's experiment: random target distributions p and drafts q that mix p with noise. "
    "KL does not determine α, but bounds it from below: a draft close in KL is accepted often. "
    "Every point must lie above both curves."
)

CHAPTER_TABLE_CAPTION = (
    "The chapter's table “Optimal draft length for different configurations” (max k = 20), "
    "computed live by `specmath.optimal_k`."
)

SIMULATOR_EXPLAINER = (
    "The closed form assumes every draft position is accepted independently with one α. Here "
    "the algorithm runs for real: the draft proposes *k* letters, the target checks them in "
    "order, the first rejection is replaced by a residual draw, and a full acceptance earns a "
    "bonus letter. With sticky regimes (“regimes” target) a draft that does well at one "
    "position tends to do well at the next: conditional acceptance rises along the draft and "
    "the formula at the per-token rate misses the measured tokens per call. The α fitted from "
    "the mean acceptance length reproduces it by construction; that is the α to use for "
    "choosing *k*. Serving engines report the unconditional per-position rate (vLLM) or the "
    "mean acceptance length (vLLM, SGLang)."
)

CALIBRATE_EXPLAINER = (
    "**How the prediction is made.** The i.i.d. fit finds the α whose expected tokens per call "
    "(1 − α^(k+1))/(1 − α) equal your measured mean acceptance length; its interval is every α "
    "that mean is compatible with at 95%, given the number of drafting steps. With per-position "
    "rates u_i = P(at least i accepted) (vLLM reports these), tokens per call at draft length k "
    "are 1 + u_1 + … + u_k. **Beyond the measured positions** each further position is assumed "
    "accepted with the last measured conditional rate u_m / u_(m−1). The recommended k follows "
    "the profile when there is one, the i.i.d. fit otherwise. Engines differ in what they count: "
    "vLLM V0's “accepted” includes tokens after an earlier rejection, so only V1 counts, "
    "per-position rates or a mean acceptance length are used here."
)

HARDWARE_EXPLAINER = (
    "The chapter's formula charges the target one step for checking k + 1 positions. That holds "
    "while a decoding step is **memory-bound**: reading the weights and the KV cache takes longer "
    "than the arithmetic, so extra positions ride along for free (left of the dashed line in the "
    "verification chart). Larger batches multiply the arithmetic until the step turns "
    "**compute-bound**; then verifying k + 1 positions costs about k + 1 steps, the best k "
    "shrinks, and past the crossover speculation slows serving down. Long contexts push the "
    "crossover out, because reading the KV cache grows with the batch too. The roofline ignores "
    "kernel efficiency; use the overhead and your measured numbers to bring it closer to your "
    "system, or calibrate c on the Calibrate page."
)

HARDWARE_AT_CAP = (
    "k = {k} is the largest k searched, and the predicted speedup still rises there: a longer draft "
    "would be predicted faster still."
)
HARDWARE_AT_CAP_BLOCK = (
    " A block drafter pays little for more positions until compute binds, but a DFlash checkpoint "
    "drafts at most its block size less one (15 for a block of 16), as the engines' notes on the Engine "
    "configs tab say."
)

HARDWARE_MOE = (
    "**Mixtures of experts.** Each token uses k of a layer's E experts, so a decoding step reads "
    "the experts its batch's tokens woke, E (1 − (1 − k/E)^T) of them on average for T tokens "
    "routed uniformly. Verifying k + 1 positions per sequence wakes more, and the pass reads more "
    "weights long before compute binds: left, the verify pass against one step for the target "
    "and for a dense model of its active size (which reads the same weights at one token). At "
    "large batches every expert is awake at one position already and the two meet. **Tensor "
    "parallelism** splits weights, KV cache and arithmetic over the GPUs but adds two all-reduces "
    "a layer whose latency does not shrink with the batch. **Long contexts** (right; MagicDec, "
    "Chen et al. 2024, arXiv 2408.11049): the KV cache grows with batch × context and outweighs "
    "the weights, so a step stays memory-bound and speculation pays again at large batches."
)

STEP_EXPLAINER = (
    "**What the steps show.** One iteration of speculative decoding (Leviathan et al. 2023, "
    "Algorithm 1) on a toy language of 21 words whose target chain is written by hand: each word's "
    "successors make a sentence. The draft is derived from the target: blurred toward uniform "
    "(noise: it proposes words that make no sense), sampled hotter or colder (temperature), or "
    "unable to tell neighbouring words apart (merged). The draft proposes k words one at a time; "
    "the target scores all k + 1 positions in one pass; each word is kept with probability "
    "min(1, p/q), in order; at the first rejection a word is drawn from the residual "
    "max(0, p − q), normalized, and if all k pass the target adds a bonus word. Whatever the "
    "draft, each word comes out with the target's probability: a bad draft costs time, never "
    "quality. The seed draws the opening (three words of the target after a period) and the "
    "iteration; the same link shows the same iteration at the same step.\n\n"
    "**Greedy decoding, a greedy draft, block verification.** *Greedy decoding* runs both models at "
    "temperature 0: each takes its most likely word, and a draft word passes exactly when it is the "
    "target's. With sampling, the draft may instead *propose greedily*: its most likely word, checked "
    "as if q gave it probability 1, so it passes with probability p(word) however close q is to p, "
    "and a rejection draws from p without that word. *Block verification* (Sun et al. 2024, "
    "arXiv 2403.10444, Algorithm 2) checks the same draft jointly: a weight w = min(1, w · p/q) runs "
    "along it, each position gets a chance h to end the kept prefix there, from the residual weight "
    "of the next, and the prefix kept is the last position whose uniform η fell under its h, words "
    "that missed their own check included. A rejection draws from max(w·p − q, 0), normalized. It "
    "is lossless as well, and keeps at least as many words on average as the token rule."
)

#: The Draft trees page: the positional-acceptance model, its F(T), and its speedup.
TREE_FORMULAS = {
    "tokens": r"F(T) = \sum_{v \in T} \; \prod_{u \in \mathrm{path}(v)} p_{\mathrm{rank}(u)}, "
    r"\qquad \text{a chain of } k: \; F = \frac{1 - \alpha^{k+1}}{1 - \alpha}",
    "speedup": r"S = \frac{F \; T_t(1)}{d \, T_d(1) + T_t(m)} = \frac{F}{d / c + T_t(m) / T_t(1)}",
}

TREES_MODEL = (
    "**The model: positional acceptance** (Sequoia, Chen et al. 2024). The draft proposes several "
    "children of a node, ranked by its confidence; p_r is the probability that the target accepts "
    "the r-th ranked child, the same at every node (p₁ + p₂ + … ≤ 1: at most one child is "
    "accepted). The target verifies the whole tree in one pass with tree attention and keeps the "
    "longest accepted path, plus one token of its own. A node is accepted exactly when every node "
    "on its path is, with probability the product of p_rank along it (its *path score*, shown on "
    "hover), so the tokens an iteration yields, F(T), are the sum of the path scores, the root "
    "counting 1. A chain with the one rank p₁ = α gives back the chapter's E[N]."
)

TREES_EXPLAINER = (
    "**Why a wider tree helps when p₁ is low.** A chain bets everything on the draft's first "
    "choice: each extra node multiplies by p₁ again. When p₁ is modest and the second and third "
    "choices still carry weight (Sequoia's vector: p₁ = 0.63, p₂ = 0.11, p₃ = 0.06), a second "
    "child near the root is worth more than a tenth node deep in the chain, and the best tree of "
    "a budget is bushy near the root and thin below. With one rank (a chain α) every tree is the "
    "chain. The best tree is Sequoia's dynamic program; SGLang's EAGLE tree grows a top-k frontier "
    "step by step and keeps the num_draft_tokens best nodes, never better than the best tree of "
    "the same size and depth.\n\n"
    "**Why verification limits the budget at a larger batch.** Drafting costs one draft step per "
    "level (d levels: d/c target steps), whatever the width. The target's pass over m positions "
    "is free only while it is memory-bound: at batch 1 reading the weights takes longer than the "
    "arithmetic of a hundred positions, but the arithmetic grows with batch × m, and past the "
    "roofline's ridge every extra node costs time. F grows ever more slowly with m, so at a "
    "large batch the speedup peaks at a small tree (★) and a bigger tree pays less. The target's "
    "cost is the Hardware page's roofline; the draft step is T_t(1)/c, with the shared c (an "
    "EAGLE head is a single layer: c is large)."
)

TREES_FLAGS = (
    "SGLang builds the EAGLE tree, not an arbitrary one: this command serves the fastest point of the "
    "orange curves at your topk {topk} and {steps} steps (num_draft_tokens counts the root). Replace "
    "`{head}` with the EAGLE head trained for your target model (an EAGLE-3 head takes "
    "`--speculative-algorithm EAGLE3`, with the same tree flags)."
)

#: The Draft trees page where every EAGLE tree at the chosen topk and steps is slower than plain
#: decoding: no flags.
TREES_SLOWER = (
    "**No SGLang flags: at topk {topk} and {steps} steps every EAGLE tree is slower than plain "
    "decoding here** (at best {speedup:.2f}×, with {tokens} draft tokens). {better} Fewer steps (each "
    "is a draft pass), a cheaper draft (a larger c), a smaller batch or a better-matched draft would help."
)

SCHEDULE_INTRO = (
    "vLLM and TensorRT-LLM can change the draft length with the batch size, and SGLang's adaptive mode can "
    "hold a draft length per batch size: below, at each batch size from 1 up, the k with the best roofline "
    "speedup, 0 where no k beats plain decoding. The **Engine configs** tab writes this schedule in each "
    "engine's terms."
)

SCHEDULE_CAVEAT = (
    "**This schedule is the model's prediction, not a measurement.** Check it on your server with "
    "the engine's own benchmark (`vllm bench serve` at several request rates, with and without the "
    "schedule) before you rely on it. The inputs that move it most: **α** (measure it on your own "
    "traffic, on the Calibrate page), the GPU's **bandwidth-to-FLOPs ratio** (it sets the batch "
    "where verification stops being free: the Hardware page's overrides take your hardware's "
    "figures) and the **context length** (reading the KV cache keeps large batches memory-bound "
    "for longer). The roofline also leaves out attention kernels that slow with the draft length "
    "and the scheduler's own costs; the fixed overhead per pass stands in for them, and the "
    "Calibrate page fits it, with the kernels' efficiency, to your measured step times."
)

SCHEDULE_EAGLE_HEAD = (
    "Replace `{placeholder}` with the name of an {kind} head trained for your target model: its "
    "cost is not the draft model's above, so set the draft model to one of a similar size."
)

#: Where method dflash has no typed drafter: the configs carry a placeholder for the DFlash draft.
SCHEDULE_DFLASH_DRAFT = (
    "Replace `{placeholder}` with the name of a DFlash draft trained for your target model: it drafts a "
    "block in one pass, costed here as the draft model above run once over k positions, so set that to "
    "one of a similar size."
)

#: A typed drafter name the engines could not take (engine_config.valid_drafter_name); ``name``
#: is literal text.
SCHEDULE_DRAFTER_REFUSED = (
    "The draft model name {name} is not one the configs can carry ({rule}): they use {used} instead."
)

#: A draft_model pair the engines refuse (engines.configs.vocabulary): ``why`` says why,
#: ``drafters`` the presets that would do.
SCHEDULE_VOCABULARY = (
    "**These configs would not work as they stand.** {why}. What would make them work: "
    "a draft model with the target's tokenizer and vocab_size ({drafters}); or an EAGLE or EAGLE-3 head "
    "trained for the target (method `eagle` or `eagle3`), or `ngram`, which load no vocabulary of their "
    'own. vLLM 0.27.0 also takes `"use_heterogeneous_vocab": true` in `--speculative-config` for such a '
    "pair (greedy drafting only, from the tokens both vocabularies share); vLLM 0.34.0 has no such option."
)

#: A head chosen as the draft model of method draft_model (vocabulary.head_problem).
SCHEDULE_HEAD_AS_DRAFT = (
    "**These configs would not work as they stand.** {why}. What would make them work: method `{method}` "
    "with this drafter, or a draft model with the target's tokenizer and vocab_size ({drafters})."
)

#: A typed draft model for method draft_model: the page cannot check its vocabulary.
SCHEDULE_VOCABULARY_TYPED = (
    "The page does not know the typed model's vocabulary: vLLM and SGLang take it as the draft only "
    "with {target}'s vocab_size, {vocab_size:,}, and SGLang only with its tokenizer ({tokenizer})."
)

SCHEDULE_DRAFTER_UNUSED = (
    "With `{method}` the engine drafts with {what} and loads no draft model: the name typed in the sidebar is not used."
)

#: The configs' heading line: they follow the schedule above, each engine in its own words.
SCHEDULE_ENGINES = (
    "**The schedule in each engine's terms.** Each tab says first what of it the engine would not do "
    "(its own rules, with their source), and writes what the engine does take instead."
)

#: The synthetic-acceptance block (issue 33): each engine forced to accept as predicted.
SYNTHETIC_HEADING = "Measure the system side first: synthetic acceptance"
SYNTHETIC_INTRO = (
    "Every engine can be told to accept drafted tokens at a given rate whatever the drafter proposes. "
    "Served that way, it pays the real cost of drafting and verifying on your GPU at the predicted "
    "acceptance, so the benchmark below measures what this page predicts before a drafter is trained: "
    "at **{batch}** concurrent requests, k = {k}, a mean acceptance length of **{length:.3f}** tokens per "
    "target step and a predicted speedup of **{speedup:.2f}×**. The outputs are not the model's text: "
    "measure speed with it, never quality."
)
SYNTHETIC_NONE = (
    "At batch {batch} no k beats plain decoding, so there is no speculative setting to benchmark there: "
    "choose a smaller batch above."
)

#: Calibrate's "Speedup now" and "Rate α predicts" helps: at k, or for drafts shorter than k
#: (specmath.draft_lengths, specmath.predicted_acceptance_rate).
CALIBRATE_SPEEDUP_NOW_HELP = "mean acceptance length / (1 + k / c): a step drafts k tokens and verifies them once"
CALIBRATE_SPEEDUP_NOW_MIXED_HELP = (
    "mean acceptance length / (1 + d̄ / c), d̄ the draft tokens per drafting step: the drafts were "
    "shorter than k = {k}, and a step that drafts d tokens costs d draft steps and one target step"
)
CALIBRATE_RATE_MIX_HELP = (
    "Σ_d n_d (α + α² + … + α^d) / Σ_d n_d d over the n_d drafts of each length d the engine reported"
)
CALIBRATE_RATE_RANGE_HELP = (
    "The drafts were shorter than k = {k}, and how many of each length is not in the paste: from drafts "
    "of 1 and {k} tokens only (the low end) to every draft {mean} tokens long (the high end), any mix "
    "with that mean lies between"
)

#: Calibrate's "Why is my acceptance rate so low?" (issue 22): shown when the paste has the
#: engine's accepted / drafted share.
ACCEPT_RATE_HEADING = "Why is my acceptance rate so low?"
ACCEPT_RATE_EXPLAINER = (
    "The engine's **draft acceptance rate** is accepted ÷ drafted tokens. It is not the per-token "
    "acceptance α: a draft stops at its first rejected token, so the tokens drafted after it are "
    "counted but can never be accepted. The rate therefore falls as k grows even for a good draft: "
    "(α − α^(k+1)) / ((1 − α) k), which is α at k = 1 and about 36% for α = 0.74 at k = 7 (the counts "
    "in vLLM issue 26191). The **mean acceptance length** (tokens per target call, bonus included) is "
    "what sets the speedup; the conditional per-position rates say where along the draft it is lost."
)
#: The verification rule as a cause (issue 32): filled by ``features.calibrate.rule_cause``.
ACCEPT_RATE_RULE = (
    "**The verification rule is another cause.** The chapter's rule draws the draft's token from q "
    "and keeps it with probability min(1, p/q), so α = Σ min(p, q). A *greedy draft* proposes its "
    "most likely token and is checked as if q gave it probability 1: it is kept with probability "
    "p(argmax q), however close q is to p. On the Verification rules page's {preset} pair at "
    "temperature 1, Σ min(p, q) = {rejection:.3f} but p(argmax q) = {greedy:.3f}; at temperature 0 "
    "both are {zero:g}. SGLang's target-only verification kernel checks a greedy draft this way "
    "({sglang}). Which rule each engine runs by default, and the setting that switches it to "
    "rejection sampling or block verification, is in the Verification rules page's table, with the "
    "source each was read in."
)
TREE_WARNING = (
    "This SGLang run verified a **tree** of drafts (--speculative-eagle-topk {topk}): the accept length "
    "counts the best branch, so the chain α fitted from it is not the per-token acceptance and the k "
    "recommendation below is for a chain. See the Draft trees page for trees."
)

#: Calibrate's schedule (issue 22): where its step times come from.
CALIBRATE_SCHEDULE_HINT = (
    "With the GPU and the models they were measured on, your step times also scale its roofline "
    "for a batch-size schedule of k: turn on the schedule above."
)
CALIBRATE_SCHEDULE_INTRO = (
    "The Hardware page's batch-size schedule of k, from the acceptance measured above: {acceptance}. "
    "At each batch size, the k with the best speedup when the draft and the target share the GPU's "
    "roofline; 0 where no k beats plain decoding."
)
CALIBRATE_FIT = (
    "Your step times at batch {batch} ({target_ms:g} ms and {draft_ms:g} ms) fit the roofline with "
    "the kernels at **{efficiency:.0%}** of the {gpu}'s datasheet peaks and **{overhead_ms:.3f} ms** "
    "fixed per forward pass; the schedule uses that scaled roofline at every batch."
)
CALIBRATE_FIT_OVERHEAD = (
    "Your step times at batch {batch} ({target_ms:g} ms and {draft_ms:g} ms) are both slower than the "
    "{gpu}'s roofline at its datasheet peaks ({roof_target_ms:.2f} ms and {roof_draft_ms:.2f} ms), the "
    "draft's by more milliseconds than the target's: **a fixed time per pass dominates** (kernel "
    "launches, sampling, scheduling). "
    "No efficiency of at most 100% with one fixed time gives both; the closest is the kernels at "
    "**{efficiency:.0%}** of the peaks plus **{overhead_ms:.3f} ms** per pass, which gives "
    "{fit_target_ms:.2f} ms and {fit_draft_ms:.2f} ms. The schedule uses that roofline; check that both "
    "times are for one forward pass at this batch."
)
CALIBRATE_FIT_INEXACT = (
    "No fixed overhead per pass fits both step times at once (the draft's is short for its size "
    "next to the target's, or the models are alike): the closest roofline has the kernels at "
    "{efficiency:.0%} of the datasheet and no overhead, which gives {fit_target_ms:.2f} ms and "
    "{fit_draft_ms:.2f} ms, not {target_ms:g} ms and {draft_ms:g} ms. Check the models and the batch."
)
CALIBRATE_FIT_FAST = (
    "These step times ({target_ms:g} ms and {draft_ms:g} ms) are faster than the {gpu}'s datasheet "
    "allows for these models at batch {batch}: its roofline at full peaks takes {roof_target_ms:.2f} ms "
    "and {roof_draft_ms:.2f} ms. Check the GPU, the models, the precision, the batch and that the "
    "times are in ms. The schedule uses the closest roofline the datasheet allows: the kernels at "
    "{efficiency:.0%} of its peaks plus {overhead_ms:.3f} ms per pass."
)
CALIBRATE_DATASHEET = (
    "The roofline here is the {gpu}'s datasheet, with no fixed overhead per pass: enter your "
    "measured step times in the sidebar to scale it to your hardware."
)
CALIBRATE_FIT_MODEL_FREE = (
    "A model-free drafter has no draft forward pass to set beside the target's, so your step times "
    "cannot separate the kernels' efficiency from a fixed time per pass: the roofline here is the "
    "{gpu}'s datasheet with no fixed overhead, and drafting costs the lookup time in the sidebar."
)
CALIBRATE_VS_RECOMMENDED = (
    "At batch {batch} the schedule's k is {scheduled}, and the recommendation above is {recommended}: "
    "that one counts the verification of k + 1 tokens as one target step (the chapter's model), "
    "the schedule charges the target's pass over k + 1 positions as the roofline has it."
)

#: Calibrate's recommendation, when the data does not pin it down (issue 30).
CALIBRATE_NO_INTERVAL = (
    "No interval: the paste gives a mean acceptance length but no counts, so how sure the fitted α "
    "and the recommended k are cannot be said."
)
CALIBRATE_ONE_DRAFT = "This is **one drafting step**: a recommendation from it is a guess."
CALIBRATE_WIDE = (
    "Within the 95% interval for α ({low:.3f} – {high:.3f}) the best k runs from **{k_low}** "
    "({s_low:.2f}×) to **{k_high}** ({s_high:.2f}×): more drafting steps would narrow it."
)
CALIBRATE_AT_K = "At the recommended k = {k} the speedup is anywhere from {low:.2f}× to {high:.2f}× over that interval."
CALIBRATE_BEYOND = (
    "k = {k} is beyond the measured draft length, {measured}: its prediction extrapolates, "
    "assuming positions {first} to {k} are accepted {how}, which the data does not show."
)
CALIBRATE_BEYOND_IID = "with the same fitted α as the measured ones"
CALIBRATE_BEYOND_PROFILE = "with the last measured conditional rate"
#: Calibrate's per-position rates when they contradict the counts (issue 42): one source per answer.
CALIBRATE_PROFILE_SUM = (
    "The per-position rates add up to a mean acceptance length of {implied:.3f}, the counts to {mean:.3f}: "
    "they do not describe the same drafts."
)
CALIBRATE_PROFILE_RISES = (
    "The per-position rates rise with position, which P(at least i + 1 accepted) cannot: "
    "they do not describe one set of drafts."
)
CALIBRATE_PROFILE_SET_ASIDE = (
    "α, the interval, the speedup and the recommended k all come from the counts; the profile is drawn for "
    "reference only."
)
CALIBRATE_AT_CAP = "It is also the largest k searched: the predicted speedup still rises there."

#: What a copied link of Calibrate opens after a paste (issue 30): the counts, not the text.
CALIBRATE_LINK_COUNTS = (
    "The address now carries the counts this paste reduced to (k = {k}, {drafts:,} drafting steps, "
    "{accepted:,} accepted), not the text: a copied link opens them as typed counts, with the same α "
    "and interval."
)
CALIBRATE_LINK_K_ONLY = (
    "The address cannot carry this paste ({why}): a copied link opens the typed counts at k = {k}, "
    "not this view. Share the pasted text itself."
)
CALIBRATE_LINK_NOTHING = (
    "The address cannot carry this paste ({why}): a copied link opens the typed counts, not this "
    "view. Share the pasted text itself."
)
CALIBRATE_K_FIXED = (
    "The paste fixes k = {k}: the k slider follows it while the paste box has text (clear the box to "
    "use the slider and the counts)."
)

#: Calibrate's question when a paste does not print the draft length (issue 30): the fit depends on it.
CALIBRATE_ASK_K = (
    "**{source} does not print the draft length k**, and the fit depends on it: the same mean "
    "acceptance length {mean:.2f} is α = {alpha_small:.3f} at k = {k_small} but α = {alpha_large:.3f} at "
    "k = {k_large}. Enter the k this run used below."
)
CALIBRATE_ASK_K_SGLANG = (
    "For an SGLang chain (`--speculative-eagle-topk 1`) k is `--speculative-num-steps`, and "
    "`--speculative-num-draft-tokens` is k + 1. The printed accept rate hints at it: SGLang 0.5.11 on "
    "prints accepted ÷ drafted, so (accept len − 1) ÷ accept rate ≈ k; 0.5.3.post2 to 0.5.10.post1 printed "
    "accept len ÷ (k + 1), so accept len ÷ accept rate ≈ k + 1 (the table below cites both)."
)
TRANSLATOR_HEADING = "What each engine's acceptance figures mean"
TRANSLATOR_INTRO = (
    "Engines print an *acceptance rate* and an *acceptance length* that are not the same quantity from one "
    "engine, or one version, to the next. In this page's terms a step drafts k tokens, *accepted* counts the "
    "draft tokens of the accepted prefix (no bonus token), the rate is accepted ÷ drafted and the mean "
    "acceptance length L = 1 + accepted ÷ drafts counts the bonus token. Each row says what the figure is and "
    "how it converts; the last columns convert the figures your paste prints, at its k."
)
CALIBRATE_RATE_CONVERTED = (
    "The engine's rate above is converted: {engine} printed {metric} = {value:g}, which is {meaning} "
    "({versions}); at k = {k}, accepted ÷ drafted = {rate:.1%}."
)
CALIBRATE_WAITING_FOR_K = "No fit until the draft length is given: α depends on it."

# The Calibrate page's sweep view (dashboard/features/calibrate_sweep.py).
CALIBRATE_LINK_SWEEP = (
    "The address cannot carry a sweep: a copied link opens the typed counts, not this view. Share the "
    "sweep's lines themselves."
)
#: The sweep's engine settings: the sidebar's schedule settings give the method and the names.
SWEEP_ENGINES_HINT = (
    "For this schedule in every engine's terms, and a synthetic-acceptance benchmark at the sweep's "
    "acceptance, turn on **Batch-size schedule for a GPU** in the sidebar and choose the method, the "
    "models and the batch there."
)
SWEEP_ENGINES_SETTINGS = (
    "From the sidebar's schedule settings these use the method ({method}), the models' names (target "
    "{target}, drafter {drafter}), the data-parallel size, the MTP layers, the batch and the context "
    "(the benchmark's prompt length); the sweep's measured step times replace the GPU, precision and "
    "largest batch there."
)
SWEEP_ENGINES_BATCH = (
    "The sweep did not run batch {batch}: the engines that take one k, and the synthetic benchmark, are "
    "for batch {measured}, the nearest measured one at or below it."
)
SWEEP_SYNTHETIC_COMPARE = (
    "Here the speedup is the one the sweep **measured** at batch {batch} with the real drafter: a synthetic "
    "run at the same acceptance length should come close to it, and the drafter's own cost is what a gap shows."
)
SWEEP_TREES = (
    "{runs} tree run(s) (topk above 1) are left out of the curve, the profile and the schedule: a tree's "
    "accept length is not a chain's at any k (see the Draft trees page)."
)
SWEEP_PROFILE_ADJUSTED = (
    "The rises of the measured lengths from one k to the next were not a profile (above 1, below 0, or "
    "growing with position); the profile is the closest one that is, in least squares."
)
SWEEP_NO_INTERVAL = "Runs without completion_tokens do not say how many steps they made: their points have no interval."
SWEEP_NO_BASELINE = (
    "Batch sizes {batches} have no run without speculation (steps = topk = num_draft_tokens = 0), so no "
    "speedup there: they are left out of the schedule."
)
SWEEP_PROFILE = (
    "Each point is the mean acceptance length of the chain runs of that k, pooled over batch sizes "
    "(acceptance does not depend on the batch), with the interval i.i.d. acceptance allows for the steps "
    "they surely made. The profile u_i is the rise L(i) − L(i − 1), spread evenly over the draft lengths "
    "not run, up to k = {k}: the dotted line is the expected tokens it gives back."
)
SWEEP_SCHEDULE = (
    "At each batch b the speedup of draft length k is **L(k) × T_b(0) / T_b(k)**, from the measured step "
    "times of the run without speculation and of the chain of k: measured, with no roofline and no model "
    "of the GPU. The best measured k at each batch makes the schedule; where none beats plain decoding it "
    "is 0. Only the k that were run are considered."
)
CALIBRATE_BY_DRAFT_LENGTH = (
    "The engine said how many tokens each step drafted: each point is the mean acceptance length of the "
    "steps of that draft length, with the interval i.i.d. acceptance allows for their count. Points on the "
    "dotted i.i.d. line at the fitted α say the drafts of every length were accepted alike."
)
PREDICTIONS_INTRO = (
    "Published runs that give both a measured acceptance length and a measured speedup on named hardware "
    "(`dashboard/data/measured_runs.json`, each with its source), beside the speedup "
    "`specmath.predict_speedup` gives the same run: the measured acceptance length over the roofline's price "
    "of one iteration, the draft passes and the verify pass, with the experts a pass wakes and tensor "
    "parallelism, as the Hardware page prices them. With the acceptance taken as measured, every error is the "
    "cost side's."
)
PREDICTIONS_OVERHEADS = (
    "Two times the roofline leaves out: per layer of every forward pass (kernel launches, small kernels) and "
    "per speculative iteration beyond its passes (sampling, acceptance, bookkeeping). The predictions use a "
    "time per layer measured apart from these runs, none per iteration in general, and, for SGLang without its "
    "overlap scheduler, the host time an iteration leaves exposed, 0.89 ms, also measured apart (sglang PR "
    "#18906: one request at the same acceptance length with and without it). Fitted to these runs the pair "
    "prices them better, in sample; but fitted without a publisher it prices that publisher's runs worse than "
    "the roofline alone, and it moves with each source added: the runs are too few to tell engines apart "
    "(docs/predictions.md)."
)
PREDICTIONS_TABLE = (
    "**error %** is (predicted − measured) / measured: above 0 the model promises more than the run gave. "
    "The last columns are what the model priced for one iteration, so a reader can see which side is off: "
    "the drafting, the plain step T_target(1) and the verify pass over w positions T_target(w); "
    "predicted = accept length × T_target(1) / (T_draft + T_target(w))."
)

PREDICTIONS_BATCHES = (
    "Settings a source ran at four or more batch sizes, one iteration in plain steps T_target(1) at each. The "
    "priced iteration falls as the batch grows: an MoE plain step already wakes most experts, so the verify pass "
    "adds little. Where the measured one stays level, the verify pass at a large batch costs more than the "
    "roofline prices. The mixture-of-experts kernel is not why: vLLM's fused one, timed on an H100 with "
    "uniform routing at Qwen3-30B-A3B's expert shapes in FP8 (vllm PR #24700), takes 210 µs for 32 tokens and "
    "286 µs for 512, within 1.6× of the time its experts' weights take to read at both. Left to test against "
    "a source: the attention of a verify pass (engines run it as a prefill over the drafted tokens) and "
    "routing that leaves more experts asleep in the plain step than uniform routing does."
)
