"""The one record every engine format is read into, in this library's terms."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineMetrics:
    """Speculative decoding metrics of one serving engine, in this library's terms.

    Attributes
    ----------
    engine : str
        The engine that wrote it (``"vLLM"``, ``"SGLang"``, …): the ``ENGINE`` of the format's module.
    format : str
        The name of the format read: the ``FORMAT`` of one of the modules
        :data:`engines.dispatch.FORMATS` lists (``"vLLM V1 log"``, ``"SGLang log"``, …).
    k : int or None
        Draft length (speculative tokens per step), when printed or derivable: the number of
        per-position rates, V0's "Number of speculative tokens", llama.cpp's ``n_draft``, or
        draft tokens / drafts when that divides exactly.
    drafts : int or None
        Drafting iterations: target verification steps that checked a draft.
    draft_tokens : int or None
        Draft tokens proposed.
    accepted : int or None
        Accepted draft tokens in the accepted prefixes, bonus token not included, so that
        1 + accepted / drafts is the mean acceptance length. For V0 this is emitted - drafts;
        V0's own count, which includes tokens after an earlier rejection, is in ``notes``.
    emitted : int or None
        Tokens emitted by those steps, where the engine reports it (V0, llama.cpp) or it
        follows as accepted + drafts.
    mean_acceptance_length : float or None
        Tokens per iteration including the bonus or corrected token, 1 + accepted / drafts,
        as vLLM V1 and SGLang define it.
    per_position : tuple of float or None
        Unconditional P(at least i + 1 draft tokens accepted), i = 0 … k - 1.
    notes : tuple of str
        Human-readable caveats: how several reports were combined, definitions that differ,
        printed values that disagree with the counts, lines skipped.
    accept_rate : float or None
        The share of draft tokens accepted, accepted / drafted, as the engine reports it
        (vLLM V1's "Draft acceptance rate", llama-server's "draft acceptance", SGLang's
        "accept rate" of 0.5.11 on): from the counts where the paste has them, else the printed
        figure converted through its definition (``printed``), as a fraction. None for vLLM V0,
        whose printed rate also counts tokens after a rejection, and for an SGLang rate that is
        accept len ÷ (k + 1) while k is unknown.
    tree_topk : int or None
        SGLang's ``--speculative-eagle-topk`` when the paste shows the server's arguments;
        above 1 each step verified a tree of drafts, not a chain.
    position_drafts : tuple of int or None
        Drafts that had a token at position i + 1 (i = 0 … k - 1), where the engine says each
        draft's length (vLLM's detailed per-request metrics): how many drafts every per-position
        rate is over.
    by_draft_length : tuple of (int, int, int) or None
        ``(d, steps, accepted)``: the verification steps that drafted d tokens and the draft tokens
        they accepted, for each d drafted, where the engine says each step's (vLLM's detailed
        per-request metrics); :func:`engines.acceptance_curve` turns them into L(d).
    drafts_allowed : tuple of (int, int) or None
        Where ``drafts`` is None because the engine prints no count of drafts and its rounded
        printed values (mean acceptance length, per-position rates) fit several (vLLM V1's and
        llama-server's lines): the fewest and the most they fit, summed over the lines read.
        :func:`engines.draft_lengths` infers the drafts within it.
    printed : tuple of (str, float)
        The acceptance figures the paste prints, as printed (a percentage as a percentage), each under
        its key in :data:`engines.definitions.DEFINITIONS`, which says what it means and how
        it converts: SGLang's averaged as its mean is, the other formats' those of the latest report.
    """

    engine: str
    format: str
    k: int | None
    drafts: int | None
    draft_tokens: int | None
    accepted: int | None
    emitted: int | None
    mean_acceptance_length: float | None
    per_position: tuple[float, ...] | None
    notes: tuple[str, ...] = ()
    accept_rate: float | None = None
    tree_topk: int | None = None
    position_drafts: tuple[int, ...] | None = None
    by_draft_length: tuple[tuple[int, int, int], ...] | None = None
    drafts_allowed: tuple[int, int] | None = None
    printed: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class EngineSweep:
    """A benchmark sweep of one engine: one run per (batch size, draft setting), in this library's terms.

    Attributes
    ----------
    engine, format : str
        ``"SGLang"``, ``"SGLang bench_speculative"``.
    batch : tuple of int
        Requests decoded together in each run.
    draft_length : tuple of int
        Draft tokens verified per step in each run as a chain would: 0 for a run without
        speculative decoding (the baseline), else ``min(steps, num_draft_tokens - 1)``; for a
        tree run (``topk`` above 1) the tree's depth, ``steps``.
    topk : tuple of int
        Branching of each run's draft tree: 1 a chain, 0 no speculation.
    draft_tokens : tuple of int
        Tokens each run verified per step (SGLang's ``--speculative-num-draft-tokens``).
    mean_acceptance_length : tuple of float
        Tokens per verification step, bonus token included (1 for the baseline).
    step_time_s : tuple of float
        Seconds per decoding step at that batch: one draft-and-verify iteration, or one plain
        step for the baseline.
    output_tokens : tuple of float or None
        Mean tokens generated per request in each run (None where the run does not say).
    notes : tuple of str
        Caveats, as :class:`EngineMetrics` has them.
    """

    engine: str
    format: str
    batch: tuple[int, ...]
    draft_length: tuple[int, ...]
    topk: tuple[int, ...]
    draft_tokens: tuple[int, ...]
    mean_acceptance_length: tuple[float, ...]
    step_time_s: tuple[float, ...]
    output_tokens: tuple[float | None, ...]
    notes: tuple[str, ...] = ()
