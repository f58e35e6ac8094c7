"""The page registry: one entry per page, for the navigation and the home page's cards."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class PageInfo:
    """A page: its script, its title and icon, the parameters it reads from the URL."""

    id: str
    script: str
    title: str
    icon: str
    params: tuple[str, ...]
    blurb: str = ""
    url_params: tuple[str, ...] = ()  # hand-encoded query parameters beyond the widget ones

    @property
    def url_path(self) -> str:
        """Streamlit's URL path of the page: "" for the entry script, "Speedup" for pages/1_Speedup.py."""
        if self.script == "app.py":
            return ""
        return re.sub(r"^[0-9]+[_ -]*", "", PurePosixPath(self.script).stem).replace(" ", "_")


HOME = PageInfo("home", "app.py", "Home", ":material/home:", ())

PAGES: dict[str, PageInfo] = {
    page.id: page
    for page in (
        HOME,
        PageInfo(
            "speedup",
            "pages/1_Speedup.py",
            "Speedup vs draft length",
            ":material/trending_up:",
            ("alpha", "k", "c", "compare"),
            "How the speedup rises and falls with the draft length k, for your α and c and a set "
            "of comparison curves; the best k of each curve marked.",
        ),
        PageInfo(
            "optimal_k",
            "pages/2_Optimal_k.py",
            "Optimal draft length map",
            ":material/grid_on:",
            ("alpha", "c", "max_k", "view"),
            "The best k and the best speedup over every (α, c), with the chapter's table to download.",
        ),
        PageInfo(
            "sampling",
            "pages/3_Rejection_sampling.py",
            "Rejection sampling",
            ":material/casino:",
            ("preset", "vocab", "n", "seed"),
            "Type a target p and a draft q, run millions of rounds, and watch the output land exactly on p.",
            url_params=("p", "q"),
        ),
        PageInfo(
            "kl",
            "pages/4_Acceptance_vs_KL.py",
            "Acceptance vs divergence",
            ":material/scatter_plot:",
            ("pairs", "kl_vocab", "seed", "logx"),
            "α against KL(p‖q) for random pairs, with the Pinsker and Bretagnolle–Huber bounds.",
        ),
        PageInfo(
            "simulator",
            "pages/5_Simulator.py",
            "Simulator",
            ":material/play_circle:",
            ("k", "c", "target", "draft", "contexts", "temperature", "noise", "chain_vocab", "tokens", "seed"),
            "Run the whole algorithm on a toy language, token by token: where the closed form "
            "holds, where it does not, and what an engine's per-position counters mean.",
        ),
        PageInfo(
            "calibrate",
            "pages/6_Calibrate.py",
            "Calibrate from your engine",
            ":material/tune:",
            ("k", "c", "drafts", "accepted", "target_ms", "draft_ms"),
            "Paste what vLLM, SGLang or llama.cpp printed: get your real α, the per-position "
            "profile, and the draft length to use.",
        ),
        PageInfo(
            "hardware",
            "pages/7_Hardware.py",
            "Hardware",
            ":material/memory:",
            (
                "alpha",
                "k",
                "target_model",
                "draft_model",
                "gpu",
                "precision",
                "batch",
                "context",
                "overhead_ms",
                "bandwidth",
                "peak",
            ),
            "When verification is not free: a roofline model of draft and target on your GPU, "
            "the best k as the batch grows, and the arithmetic speculation costs.",
        ),
    )
}
