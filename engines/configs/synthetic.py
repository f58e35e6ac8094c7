"""Each engine's synthetic acceptance: the settings that make it accept as the prediction says,
whatever the drafter proposes, so the system side of a predicted speedup (the draft's and the
verification's cost on your GPU) can be measured before a drafter is trained.

The acceptance is the prediction's: an i.i.d. α (u_i = α^i), a measured per-position profile
u_1, u_2, … (extrapolated as :func:`specmath.calibration.extend_profile` does), u_i being P(at least i draft
tokens accepted), or a :class:`specmath.Acceptance` (its own profile: for a measured curve
{k: AL}, u_i = AL(i) − AL(i − 1), so 1 + u_1 + … + u_k is the curve's AL at every k it measured).
At the benchmarked batch B with draft length k_B, the mean acceptance length
is L_B = 1 + u_1 + … + u_{k_B}: what SGLang's and TensorRT-LLM's settings force, while vLLM and
llama.cpp take the u_i themselves (unconditional, as they print them). Sources, engine by engine:

- vLLM 0.33.0, ``vllm/config/speculative.py``: ``rejection_sample_method: "synthetic"``
  (``RejectionSampleMethod``, lines 83 and 562) with exactly one of
  ``synthetic_acceptance_rates`` (line 571: per-position unconditional rates, length
  ``num_speculative_tokens``, each in [0, 1], non-increasing; checked at lines 600-633) or
  ``synthetic_acceptance_length`` (line 579, in [1, k + 1]), which vLLM turns into the
  "minimum-variance" rates [1, …, 1, fraction, 0, …] (``_acceptance_length_to_rates``, lines
  589-598), not the i.i.d. profile; so the rates are written. The sampler accepts position i with
  the conditional rate u_i / u_{i-1} (``vllm/v1/spec_decode/utils.py`` lines 848-851,
  ``vllm/v1/sample/rejection_sampler.py`` lines 102-115 and 825-833), also for drafts shorter
  than k. Benchmark: ``vllm bench serve`` (``vllm/entrypoints/cli/benchmark/serve.py`` line 13)
  with ``--dataset-name random`` (``vllm/benchmarks/datasets/datasets.py`` line 1593),
  ``--random-input-len`` / ``--random-output-len`` (lines 1888, 1894), ``--num-prompts`` (line
  1587), ``--max-concurrency`` and ``--ignore-eos`` (``vllm/benchmarks/serve.py`` lines 1679,
  1832); it reports median TPOT.
- SGLang 0.5.23: ``SGLANG_SIMULATE_ACC_LEN`` (``sglang/srt/environ.py`` line 527, a float,
  default -1: off at or below 0) is the accept length with the bonus token; with the default
  ``SGLANG_SIMULATE_ACC_METHOD`` ``match-expected`` (line 528) each verify step accepts the floor
  or the ceiling of it, one draw for the batch, so the mean is the value, clamped to [1, steps + 1]
  (``sglang/srt/speculative/spec_utils.py`` lines 489-524). Applied in ``eagle_sample``
  (``sglang/srt/speculative/eagle_utils.py`` lines 807-840), which the EAGLE workers and the
  NGRAM worker (``ngram_worker.py`` line 479) call; the DFLASH worker forces the same length,
  clamped to [1, block size] (``dflash_worker_v2.py`` lines 2268-2280,
  ``apply_dflash_simulated_acceptance`` in ``dflash_utils.py`` lines 851-890).
  Benchmark: ``python -m sglang.benchmark.serving``
  (``sglang/bench_serving.py`` is its deprecated path) with ``--backend sglang``,
  ``--dataset-name random``, ``--random-input-len``, ``--random-output-len``, ``--num-prompts``,
  ``--max-concurrency`` (``sglang/benchmark/serving.py`` lines 2301-2478); it prints
  "Median TPOT (ms)" (line 1782).
- TensorRT-LLM (``tensorrt_llm/_torch/speculative/interface.py`` at 00b6d5a, ``get_force_num_accepted_tokens``
  and ``…_float``): ``TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS`` counts accepted *draft*
  tokens, the bonus token not included, so it is L_B − 1. The one-model path reads it as a float
  (its integer part accepted every iteration, the fraction the chance of one more); the
  two-model path (``TorchSampler``, NGram here) reads an int and takes a fraction for 0, off.
  DFlash runs in the target's engine (``use_one_engine``) with a worker built on the one-model
  workers' ``SpecWorkerBase`` (``tensorrt_llm/_torch/speculative/dflash.py``), so it is read as they read it.
  Benchmark: ``trtllm-bench --model M throughput --dataset … --extra_llm_api_options …
  --concurrency B`` (``tensorrt_llm/bench/benchmark/throughput.py`` at 5685103). It loads the
  model itself, so it takes the target's tensor parallelism: ``--tp`` (line 194 there, "tensor
  parallelism size", default 1, in its "World Configuration" group).
- llama.cpp at 0c1e570 (not in the issue): ``--spec-synth-rates P0,P1,…`` (``common/arg.cpp``
  line 4170), unconditional per-position rates, exactly ``n_max`` of them, non-increasing in
  [0, 1] (``common/speculative.cpp`` lines 2365-2397); or ``--spec-synth-len L`` (line 4157),
  which it turns into the geometric rates p^i with 1 + p + … + p^n_max = L. llama.cpp ships no
  serving benchmark the page has checked.

A target on more than one GPU is served as the configs serve it (:func:`engines.engine_configs`):
vLLM's ``--tensor-parallel-size`` and SGLang's ``--tp-size`` on the serve commands (sources in
their modules), TensorRT-LLM's ``--tp`` on ``trtllm-bench``; the benchmark clients
(``vllm bench serve``, ``sglang.benchmark.serving``) talk to that server and take none.
llama.cpp has no degree (its config says what it has instead).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from specmath import Acceptance
from specmath.calibration import extend_profile

from . import llamacpp, sglang, trtllm, vllm
from ._common import ConfigBlock, check_count, check_name, check_parallel, command, flag_lines, shell_word

#: Output tokens per benchmark request: long enough for decoding to dominate the time.
OUTPUT_TOKENS = 256


@dataclass(frozen=True)
class SyntheticRun:
    """One engine's synthetic-acceptance benchmark: what to serve with, how to load it, what to compare."""

    engine: str
    mean_length: float  # the mean acceptance length the settings force at the benchmarked batch
    blocks: tuple[ConfigBlock, ...]
    compare: str
    warnings: tuple[str, ...] = ()


def acceptance_profile(acceptance, k_max: int) -> np.ndarray:
    """u_1 … u_{k_max}: α^i for one α, an :class:`specmath.Acceptance`'s own :meth:`~specmath.Acceptance.profile`,
    else the profile extended as :func:`specmath.calibration.extend_profile` does."""
    if isinstance(acceptance, Acceptance):
        return acceptance.profile(k_max)
    if np.ndim(acceptance) == 0:
        alpha = float(acceptance)
        if isinstance(acceptance, (bool, np.bool_)) or not 0.0 <= alpha <= 1.0:
            raise ValueError(f"acceptance must be within [0, 1], got {acceptance!r}")
        return alpha ** np.arange(1, k_max + 1)
    return extend_profile(acceptance, k_max)


def _rates(u: np.ndarray) -> list[float]:
    # Six decimals: rounding keeps a non-increasing list non-increasing and inside [0, 1].
    return [round(float(x), 6) for x in u]


def synthetic_runs(
    acceptance,
    schedule,
    method: str,
    model: str | None,
    fixed_k: int,
    batch: int,
    *,
    target: str,
    context: int,
    predicted_speedup: float,
    data_parallel_size: int = 1,
    n_predict: int = 1,
    tensor_parallel_size: int = 1,
    draft_tensor_parallel_size: int | None = None,
) -> tuple[SyntheticRun, ...]:
    r"""The synthetic-acceptance benchmark of every engine that has one and a config here.

    Each forces the mean acceptance length the prediction has at the benchmarked batch B,

    .. math:: L_B = 1 + \sum_{i=1}^{k_B} u_i, \qquad u_i = \alpha^i \text{ (i.i.d.) or the measured profile,}

    :func:`specmath.expected_tokens` at k_B for one α; vLLM and llama.cpp take the
    u_i themselves, so the whole distribution of accepted lengths is the prediction's.

    Parameters
    ----------
    acceptance : float, sequence of float or Acceptance
        α in [0, 1]; u_1 … u_m (non-increasing, in [0, 1]), extended past m by
        :func:`specmath.calibration.extend_profile`; or a :func:`specmath.acceptance` value (a measured curve's
        L_B is its AL at k_B, and vLLM's and llama.cpp's rates are its u_i, differences of the curve).
    schedule, method, model, data_parallel_size, n_predict, tensor_parallel_size, draft_tensor_parallel_size
        As :func:`engines.engine_configs`; above one GPU the serve commands (and ``trtllm-bench``,
        which loads the model itself) carry the target's tensor-parallel flag.
    fixed_k, batch : int
        The best k at the benchmarked batch, which is the benchmark's concurrency; k 0 gives no runs.
    target : str
        The target model's Hub id or path, as the serve and benchmark commands load it (quoted
        where a shell would read it otherwise; as ``model``).
    context : int
        Prompt tokens per benchmark request (at least 1 is used).
    predicted_speedup : float
        The speedup predicted at ``batch``, > 0: what the benchmark is compared with.

    Returns
    -------
    tuple of SyntheticRun
        vLLM, SGLang, TensorRT-LLM and llama.cpp, each where it has a config for ``method``.
    """
    fixed_k, batch = check_count(fixed_k, "fixed_k"), check_count(batch, "batch", 1)
    context = check_count(context, "context")
    target = check_name(target, "target")
    if isinstance(predicted_speedup, bool) or not (
        isinstance(predicted_speedup, (int, float, np.floating))
        and np.isfinite(predicted_speedup)
        and predicted_speedup > 0
    ):
        raise ValueError(f"predicted_speedup must be a finite number > 0, got {predicted_speedup!r}")
    if fixed_k == 0:
        return ()
    if isinstance(acceptance, Acceptance) and acceptance.alpha is not None:
        acceptance = acceptance.alpha  # an i.i.d. value writes what its float writes, to the digit
    compare = (
        f"Run the same benchmark against the server without speculation: the predicted speedup at "
        f"{batch} concurrent requests is **{predicted_speedup:.2f}×**, the plain run's {{metric}} over this one's."
    )
    prompt = max(int(context), 1)
    prompts = max(4 * batch, 64)
    u = acceptance_profile(acceptance, max(k for _, _, k in schedule) or fixed_k)
    u_b = acceptance_profile(acceptance, fixed_k)
    # An Acceptance's own length at k_B: a curve's AL there (as adjusted), the figure every prediction uses.
    length = float(acceptance.lengths(fixed_k)) if isinstance(acceptance, Acceptance) else 1.0 + float(u_b.sum())
    runs = []

    tp = check_parallel(tensor_parallel_size, draft_tensor_parallel_size)[0]
    parallel = {
        "data_parallel_size": data_parallel_size, "n_predict": n_predict,
        "tensor_parallel_size": tensor_parallel_size, "draft_tensor_parallel_size": draft_tensor_parallel_size,
    }  # fmt: skip
    config = vllm.vllm_config(schedule, method, model, fixed_k=fixed_k, batch=batch, **parallel).settings
    if config is not None:
        k = config["num_speculative_tokens"]
        rates = _rates(u if k <= u.size else acceptance_profile(acceptance, k))[:k]
        synthetic = config | {"rejection_sample_method": "synthetic", "synthetic_acceptance_rates": rates}
        # The configs' own command, whose --max-num-seqs lets the benchmark's concurrency run at once on any GPU.
        serve = vllm.serve_command(
            target, synthetic, tensor_parallel_size=tp, data_parallel_size=data_parallel_size, batch=batch
        )
        bench = flag_lines(
            [
                ("vllm bench serve --model", target),
                ("--dataset-name", "random"),
                ("--random-input-len", prompt),
                ("--random-output-len", OUTPUT_TOKENS),
                ("--num-prompts", prompts),
                ("--max-concurrency", batch),
                ("--ignore-eos", ""),
            ]
        )
        blocks = (ConfigBlock("serve", serve, "bash"), ConfigBlock("benchmark", bench, "bash"))
        runs.append(SyntheticRun("vLLM", length, blocks, compare.format(metric="median TPOT")))

    algorithm = sglang.ALGORITHMS[method]
    if algorithm is not None:
        # The configs' own command, whose cap on running requests lets the benchmark's concurrency in.
        launch = sglang.launch_command(target, sglang.chain_flags(method, model, fixed_k), tp, batch)
        serve = f"SGLANG_SIMULATE_ACC_LEN={length:.4f} {launch}"
        bench = flag_lines(
            [
                ("python -m sglang.benchmark.serving --backend", "sglang"),
                ("--dataset-name", "random"),
                ("--random-input-len", prompt),
                ("--random-output-len", OUTPUT_TOKENS),
                ("--num-prompts", prompts),
                ("--max-concurrency", batch),
            ]
        )
        blocks = (ConfigBlock("serve", serve, "bash"), ConfigBlock("benchmark", bench, "bash"))
        runs.append(SyntheticRun("SGLang", length, blocks, compare.format(metric="median TPOT")))

    trt = trtllm.trtllm_config(schedule, method, model, fixed_k, batch)
    if trt.settings is not None:
        forced, warnings = length - 1.0, ()
        if trt.settings["decoding_type"] not in trtllm.SCHEDULED_TYPES:
            forced = float(round(forced))
            warnings = (
                f"TensorRT-LLM's two-model path ({trt.settings['decoding_type']}) reads a whole number of accepted "
                f"tokens (a fraction reads as 0, off): {forced:.0f}, a mean length of {forced + 1:.0f} "
                f"instead of {length:.3f}.",
            )
        value = f"{forced:.0f}" if forced.is_integer() else f"{forced:.4f}"
        flags = [("--dataset", "YOUR-DATASET.jsonl"), ("--extra_llm_api_options", trtllm.FILE)]
        flags += [("--concurrency", batch), *([("--tp", tp)] if tp > 1 else [])]
        forcing = f"TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS={value}"
        bench = command(f"{forcing} trtllm-bench --model {shell_word(target)} throughput", flags)
        blocks = (ConfigBlock(f"benchmark, with the {trtllm.FILE} above", bench, "bash"),)
        metric = "time per output token"
        runs.append(SyntheticRun("TensorRT-LLM", forced + 1.0, blocks, compare.format(metric=metric), warnings))

    cpp = llamacpp.llamacpp_config(method, model, fixed_k, batch, target=target)
    if cpp.settings is not None:
        rates = ",".join(f"{r:g}" for r in _rates(u_b))
        serve = cpp.blocks[0].text + " \\\n" + flag_lines([("--spec-synth-rates", rates)])
        note = (
            "llama.cpp ships no serving benchmark the page has checked: time the same requests (at "
            f"{batch} in flight) with and without the draft; the predicted speedup is **{predicted_speedup:.2f}×**."
        )
        runs.append(SyntheticRun("llama.cpp", length, (ConfigBlock("serve", serve, "bash"),), note))
    return tuple(runs)
