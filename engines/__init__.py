"""The serving engines' side: their output read into records, their configs written, their facts.

This package reads and writes the engines' formats and depends on :mod:`specmath` for the
mathematics; :mod:`specmath` knows nothing of it. Its public names:

* :func:`parse_engine_metrics` and :func:`parse_engine_sweep` read pasted engine output into an
  :class:`EngineMetrics` or an :class:`EngineSweep` (:mod:`engines.dispatch` lists the formats);
* :mod:`engines.configs` writes each engine's settings for a schedule of k (:func:`engine_configs`,
  :func:`tree_configs`, :func:`synthetic_runs`, :func:`drafter_mismatch`);
* :mod:`engines.definitions` says what each printed figure means and how it converts;
* :mod:`engines.fits` hands a record to :mod:`specmath`'s fits as plain counts
  (:func:`fit_alpha`, :func:`draft_lengths`, :func:`acceptance_curve`, :func:`measured_schedule`).

Speculative decoding metrics pasted from serving engines are read into one record.

Serving engines report how their drafts fare in their own words: vLLM V1 and V0 in log lines
and Prometheus counters, SGLang in its decode-batch log line, llama.cpp's speculative examples
in a closing summary. :func:`parse_engine_metrics` finds them in pasted text (log noise,
timestamps, several reports, a cut-off last line) and returns one :class:`EngineMetrics` in
this library's terms: ``k`` draft tokens per step, ``drafts`` target verification steps,
accepted draft tokens *without* the bonus token, and a mean acceptance length *with* it.

The engines define their numbers differently; the record reconciles them:

* vLLM V1 counts accepted tokens in the accepted prefix only; its per-position rate is the
  unconditional P(at least i + 1 accepted) and its mean acceptance length includes the bonus
  token (1 + accepted / drafts).
* vLLM V0 counts every draft token the verifier accepted, including tokens after an earlier
  rejection, so its accepted count overstates the prefix; its emitted count does not, and the
  record's accepted is emitted - drafts.
* SGLang's accept length is tokens per verification step including the bonus token, like
  V1's mean acceptance length; it prints no counts. Its accept rate is accepted / drafted from
  0.5.11 on but accept len / (k + 1) in 0.5.3.post2 to 0.5.10.post1, told apart by the line's head
  and its values.

* llama.cpp's examples count emitted tokens (n_predict) and accepted draft tokens (n_accept);
  each target step emits its accepted tokens plus one, so steps = n_predict - n_accept.

:mod:`engines.definitions` holds each printed figure's meaning, versions, conversion to
accepted / drafted and to the mean length, and source; the record files the figures a paste
prints under its keys (``printed``).
"""

from . import configs, definitions
from .configs import (
    METHOD_DRAFTERS,
    ConfigBlock,
    EngineConfig,
    SyntheticRun,
    drafter_mismatch,
    engine_configs,
    methods_for,
    synthetic_runs,
    tree_configs,
)
from .configs import METHODS as SPECULATIVE_METHODS
from .dispatch import MAX_METRICS_CHARS, parse_engine_metrics, parse_engine_sweep
from .fits import acceptance_curve, draft_lengths, fit_alpha, measured_schedule, record_counts
from .record import EngineMetrics, EngineSweep

__all__ = [
    "MAX_METRICS_CHARS",
    "METHOD_DRAFTERS",
    "SPECULATIVE_METHODS",
    "ConfigBlock",
    "EngineConfig",
    "EngineMetrics",
    "EngineSweep",
    "SyntheticRun",
    "acceptance_curve",
    "configs",
    "definitions",
    "draft_lengths",
    "drafter_mismatch",
    "engine_configs",
    "fit_alpha",
    "measured_schedule",
    "methods_for",
    "parse_engine_metrics",
    "parse_engine_sweep",
    "record_counts",
    "synthetic_runs",
    "tree_configs",
]
