"""An acceptance vector for draft trees (:mod:`specmath.trees`): Sequoia's, with its source."""

from __future__ import annotations

import numpy as np

# An acceptance vector for draft trees (specmath.trees): Sequoia's, the one its tree search
# reads by default. Infini-AI-Lab/Sequoia at commit 0ff3ff71475ca148f2dfb7545e0de5caf5c67b39,
# file acceptance-rate-vector.pt (a torch tensor of 34 little-endian float32, read here from the
# zip's raw storage, acceptance-rate-vector/data/0, without torch). Its layout is that of
# tests/test_accept.py, which writes it: entry 0 is unused (0), entries 1 to 32 are the ranks
# 1 to 32 (--W 32), entry 33 the share of target calls that accepted no child (49/667);
# tree_search.py drops the last entry and reads p[1] onward. Every entry is a count out of 667
# target calls: the stored float32 values are float32(count / 667) exactly, and the counts
# below are those values times 667. The README's command for producing such a vector uses
# JackFram/llama-68m (JF68M) as draft for meta-llama/Llama-2-7b-hf (stochastic decoding,
# temperature 0.6, CNN); the file itself records no settings.
_SEQUOIA_CALLS = 667
_SEQUOIA_COUNTS = (
    *(423, 72, 38, 15, 13, 10, 3, 2, 8, 3, 5, 3, 4, 2, 1, 2),  # ranks 1 to 16
    *(1, 2, 0, 2, 2, 2, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1),  # ranks 17 to 32
)

#: Sequoia's positional acceptance vector, ranks 1 to 32 (JF68M draft, Llama-2-7B target): read-only.
SEQUOIA_ACCEPTANCE = np.array(_SEQUOIA_COUNTS) / _SEQUOIA_CALLS
SEQUOIA_ACCEPTANCE.flags.writeable = False

#: Where :data:`SEQUOIA_ACCEPTANCE` comes from, for a page to show beside it.
SEQUOIA_ACCEPTANCE_SOURCE = (
    "Infini-AI-Lab/Sequoia, acceptance-rate-vector.pt (commit 0ff3ff7): JackFram/llama-68m draft "
    "for Llama-2-7B, counts out of 667 target calls (Chen et al. 2024, Sequoia)"
)
