"""The one record every engine format is read into, in this library's terms."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineMetrics:
    """Speculative decoding metrics of one serving engine, in this library's terms.

    Attributes
    ----------
    engine : str
        ``"vLLM"``, ``"SGLang"``, ``"llama.cpp"`` or ``"TensorRT-LLM"``.
    format : str
        ``"vLLM V1 log"``, ``"vLLM V0 log"``, ``"vLLM Prometheus"``, ``"SGLang log"``,
        ``"SGLang Prometheus"``, ``"llama.cpp summary"``, ``"llama-server log"``,
        ``"llama-server /metrics"``, ``"vLLM per-request metrics"`` or ``"TensorRT-LLM iteration stats"``.
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
        "accept rate"): from the counts where the paste has them, else the printed figure, as a
        fraction. None for vLLM V0, whose printed rate also counts tokens after a rejection.
    tree_topk : int or None
        SGLang's ``--speculative-eagle-topk`` when the paste shows the server's arguments;
        above 1 each step verified a tree of drafts, not a chain.
    position_drafts : tuple of int or None
        Drafts that had a token at position i + 1 (i = 0 … k - 1), where the engine says each
        draft's length (vLLM's detailed per-request metrics): how many drafts every per-position
        rate is over.
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
