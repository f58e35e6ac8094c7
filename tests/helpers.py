"""Shared test helpers: the chapter's example pair, hypothesis strategies, a chi-square check, a long
engine log, a chart picture's cells, and the mark of the tests that show the bugs of the pinned
Streamlit."""

import base64
import io

import numpy as np
import pytest
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image
from scipy import stats

from dashboard import workarounds

#: The chapter's 10-token example ("Speculative Decoding Math", Code Implementation).
CHAPTER_P = np.array([0.3, 0.25, 0.15, 0.1, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01])
CHAPTER_Q = np.array([0.2, 0.2, 0.2, 0.15, 0.1, 0.05, 0.04, 0.03, 0.02, 0.01])

#: Significance level of every goodness-of-fit test in the suite. With fixed seeds a test
#: either passes or fails deterministically; the level says how unlucky a seed would have to be.
SIGNIFICANCE = 1e-3


def distributions(size):
    """Hypothesis strategy: probability vectors of the given length, zeros included."""
    weights = hnp.arrays(
        np.float64,
        size,
        elements=st.one_of(st.just(0.0), st.floats(1e-6, 1.0)),
    ).filter(lambda w: w.sum() > 0)
    return weights.map(lambda w: w / w.sum())


@st.composite
def distribution_pairs(draw, max_size=30):
    """Hypothesis strategy: (p, q) over one vocabulary of 1 to max_size tokens."""
    size = draw(st.integers(1, max_size))
    return draw(distributions(size)), draw(distributions(size))


def chi_square_pvalue(tokens, probs):
    """p-value of a chi-square goodness-of-fit test of ``tokens`` against ``probs``.

    Tokens of probability 0 cannot enter the statistic; the caller checks separately that none
    was drawn (``assert_distributed_as`` does both).
    """
    counts = np.bincount(tokens, minlength=probs.size)
    support = probs > 0
    expected = probs[support] * counts[support].sum() / probs[support].sum()
    if support.sum() == 1:
        return 1.0
    return stats.chisquare(counts[support], expected).pvalue


def assert_distributed_as(tokens, probs, level=SIGNIFICANCE):
    counts = np.bincount(tokens, minlength=probs.size)
    assert counts.size == probs.size, "a token outside the vocabulary was drawn"
    assert counts[probs == 0].sum() == 0, f"tokens of probability 0 drawn: {np.flatnonzero(counts * (probs == 0))}"
    pvalue = chi_square_pvalue(tokens, probs)
    assert pvalue > level, f"chi-square rejects the law at level {level} (p-value {pvalue:.3g})"


#: For a test that shows a bug of the pinned Streamlit: on another version it skips, asking for
#: the bug to be checked again there.
ON_PINNED_STREAMLIT = pytest.mark.skipif(
    workarounds.STREAMLIT != workarounds.PINNED,
    reason=f"the workarounds were written for Streamlit {workarounds.PINNED}, not {workarounds.STREAMLIT}: "
    "re-check each bug on this version",
)


#: A vLLM V1 report of k = 3 and mean 2.56, and an earlier one of k = 4 and mean 3.00.
LATEST_REPORT = (
    "INFO 05-14 10:21:37 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 2.56, Accepted "
    "throughput: 31.20 tokens/s, Drafted throughput: 60.00 tokens/s, Accepted: 312 tokens, Drafted: 600 "
    "tokens, Per-position acceptance rate: 0.750, 0.500, 0.310, Avg Draft acceptance rate: 52.0%\n"
)
EARLIER_REPORT = (
    "INFO 05-14 10:20:11 [metrics.py:96] SpecDecoding metrics: Mean acceptance length: 3.00, Accepted "
    "throughput: 20.00 tokens/s, Drafted throughput: 40.00 tokens/s, Accepted: 200 tokens, Drafted: 400 "
    "tokens, Per-position acceptance rate: 0.800, 0.600, 0.400, 0.200, Avg Draft acceptance rate: 50.0%\n"
)


def long_engine_log(total: int = 1_234_567) -> str:
    """A log of ``total`` characters: the earlier report, lines of 100 characters, the latest report last."""
    filler = total - len(EARLIER_REPORT) - len(LATEST_REPORT)
    return EARLIER_REPORT + ("y" * 99 + "\n") * (filler // 100) + "z" * (filler % 100) + LATEST_REPORT


def picture_cells(source: str, shape: tuple[int, int]) -> np.ndarray:
    """The colour at each cell's centre of a picture the charts paint (a PNG data URL: the Optimal k
    map and its colour bar), row 0 at the bottom (the smallest c, the lowest value), as the grid's rows."""
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1]))).convert("RGB"))
    rows, cols = shape
    step_y, step_x = image.shape[0] / rows, image.shape[1] / cols
    centre_y = ((np.arange(rows) + 0.5) * step_y).astype(int)
    centre_x = ((np.arange(cols) + 0.5) * step_x).astype(int)
    return image[centre_y][:, centre_x][::-1]
