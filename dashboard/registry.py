"""The page registry: the one list of the dashboard's pages.

The router (``app.py``), the navigation, the home page's cards, the tests, the benches and the
screenshot script all read :data:`PAGES`. A new page is one entry here, one script in
``app_pages/`` and its module in ``dashboard/features/``, which declares the page's parameters
(``SECTIONS``, the entry's ``sections``); everything else follows from the entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from dashboard.features import (
    acceptance_vs_kl,
    calibrate,
    draft_trees,
    hardware,
    optimal_k,
    predictions,
    rejection_sampling,
    simulator,
    speedup,
    step_through,
    verification_rules,
)
from dashboard.params import HARDWARE_TABS, SHARED_KEYS, Section, section_keys


@dataclass(frozen=True)
class PageInfo:
    """A page: its script, title, icon and address, the parameters it reads, its home-page card.

    ``sections`` are the page's widget parameters (``dashboard.params.PARAMS``) as its
    ``dashboard.features`` module declares them, the one list of them: the page shows its widgets
    from the same sections (``PageContext.show``), and :attr:`params` are their keys in order (a
    page may read one from the address itself, as the Step through page its step, whose range
    depends on k). ``url_params`` are the hand-encoded query parameters beyond them (the typed p
    and q).
    """

    id: str
    script: str
    title: str
    icon: str
    url_path: str  # "" for the home page
    sections: tuple[Section, ...] = ()
    card: str = ""
    url_params: tuple[str, ...] = ()
    #: Other views of the page worth a picture, (name, query): the screenshots take them beside
    #: the default view (a query ending in #anchor scrolls that heading to the top), and the
    #: screen-size test measures them.
    views: tuple[tuple[str, str], ...] = ()
    #: One of the chapter's own views (its formulas, table and experiment), which the home page
    #: puts first.
    chapter: bool = False

    @property
    def params(self) -> tuple[str, ...]:
        """The page's parameter keys, in the order of its sections."""
        return section_keys(self.sections)

    @property
    def shared_params(self) -> tuple[str, ...]:
        """The shared α, k, c this page reads, in its order: the navigation carries them along."""
        return tuple(key for key in self.params if key in SHARED_KEYS)

    @property
    def app_params(self) -> tuple[str, ...]:
        """The parameters of this page whose widgets the router creates (see :data:`APP_KEYS`)."""
        return tuple(key for key in self.params if key in APP_KEYS)


HOME = PageInfo("home", "app_pages/home.py", "Home", ":material/home:", "")


def hardware_tab(name: str) -> str:
    """The address part that opens the Hardware page's tab ``name`` (its label, as the tabs write it)."""
    return urlencode({"hw_view": HARDWARE_TABS[name]})


PAGES: dict[str, PageInfo] = {
    page.id: page
    for page in (
        HOME,
        PageInfo(
            "speedup",
            "app_pages/speedup.py",
            "Speedup vs draft length",
            ":material/trending_up:",
            "Speedup",
            speedup.SECTIONS,
            "How the speedup rises and falls with the draft length k, for your α and c and a set "
            "of comparison curves; the best k of each curve marked, published measurements beside them.",
            chapter=True,
        ),
        PageInfo(
            "optimal_k",
            "app_pages/optimal_k.py",
            "Optimal draft length map",
            ":material/grid_on:",
            "Optimal_k",
            optimal_k.SECTIONS,
            "The best k and the best speedup over every (α, c), with the chapter's table to download.",
            chapter=True,
        ),
        PageInfo(
            "sampling",
            "app_pages/rejection_sampling.py",
            "Rejection sampling",
            ":material/casino:",
            "Rejection_sampling",
            rejection_sampling.SECTIONS,
            "Type a target p and a draft q, run millions of rounds, and watch the output land exactly on p.",
            chapter=True,
            url_params=("p", "q"),
        ),
        PageInfo(
            "kl",
            "app_pages/acceptance_vs_kl.py",
            "Acceptance vs divergence",
            ":material/scatter_plot:",
            "Acceptance_vs_KL",
            acceptance_vs_kl.SECTIONS,
            "α against KL(p‖q) for random pairs, with the Pinsker and Bretagnolle–Huber bounds.",
            chapter=True,
        ),
        PageInfo(
            "simulator",
            "app_pages/simulator.py",
            "Simulator",
            ":material/play_circle:",
            "Simulator",
            simulator.SECTIONS,
            "Run the whole algorithm on a toy language, token by token: where the closed form "
            "holds, where it does not, and what an engine's per-position counters mean.",
        ),
        PageInfo(
            "step_through",
            "app_pages/step_through.py",
            "Step through",
            ":material/skip_next:",
            "Step",
            step_through.SECTIONS,
            "Watch one iteration on words you can read, a step at a time: the draft proposes, the "
            "target scores every position at once, each word is checked, the last word is drawn.",
            # Each phase after the first (drafting, the default) at the longest draft, and a block check.
            views=(
                ("score", "k=8&step=9"),
                ("check", "k=8&step=10"),
                ("finish", "k=8&step=18"),
                ("outcome", "k=8&step=19"),
                # Block verification keeping four words of a greedy draft, the first three having missed.
                ("block", "k=8&step=13&step_verification=block&step_proposal=greedy_draft&seed=0"),
            ),
        ),
        PageInfo(
            "calibrate",
            "app_pages/calibrate.py",
            "Calibrate from your engine",
            ":material/tune:",
            "Calibrate",
            calibrate.SECTIONS,
            "Paste what vLLM, SGLang or llama.cpp printed: get your real α, the per-position "
            "profile, the draft length to use, and a batch-size schedule of it for your GPU.",
            # The schedule on the roofline scaled to measured step times.
            views=(
                ("schedule", "cal_schedule=true&target_ms=8&draft_ms=2#a-batch-size-schedule-of-k-for-your-engine"),
            ),
        ),
        PageInfo(
            "hardware",
            "app_pages/hardware.py",
            "Hardware",
            ":material/memory:",
            "Hardware",
            hardware.SECTIONS,
            "When verification is not free: a roofline model of draft and target on your GPU, "
            "the best k as the batch grows, and the arithmetic speculation costs.",
            # Without a KV cache to read, speculation stops paying from batch 242 on: a k = 0 range.
            # The engines' configs of the default schedule.
            # A mixture of experts on two GPUs: its verify pass against a dense model's, and the
            # (batch, context) map where long contexts make speculation pay again.
            views=(
                ("schedule", f"{hardware_tab('schedule')}&context=0&max_batch=1024"),
                ("engines", hardware_tab("engines")),
                (
                    "experts",
                    f"{hardware_tab('experts')}&target_model=Qwen3-30B-A3B&draft_model=Qwen3-30B-A3B-EAGLE-3&method=eagle3"
                    "&gpu=H200+SXM&tp=2&draft_tp=2",
                ),
            ),
        ),
        PageInfo(
            "predictions",
            "app_pages/predictions.py",
            "Predictions vs measurements",
            ":material/fact_check:",
            "Predictions",
            predictions.SECTIONS,
            "Published runs with a measured acceptance length and speedup, beside the speedup the "
            "roofline predicts for each: the errors, per source, and the iteration's priced parts.",
        ),
        PageInfo(
            "trees",
            "app_pages/draft_trees.py",
            "Draft trees",
            ":material/account_tree:",
            "Trees",
            draft_trees.SECTIONS,
            "Draft a tree instead of a chain: the best tree for a budget under positional acceptance, "
            "what SGLang's EAGLE settings build, and when verifying a bigger tree stops paying.",
        ),
        PageInfo(
            "verification",
            "app_pages/verification_rules.py",
            "Verification rules",
            ":material/rule:",
            "Verification_rules",
            verification_rules.SECTIONS,
            "Rejection sampling against what engines run: greedy drafts, exact match, lossy "
            "thresholds and block verification, at any temperature.",
        ),
        PageInfo(
            "exercises",
            "app_pages/exercises.py",
            "Exercises",
            ":material/school:",
            "Exercises",
            (),
            "Workshop exercises: a question, a link that opens the page set up for it, and the "
            "answer, computed by specmath, revealed on click.",
        ),
    )
}

#: Parameters whose widgets the router creates, not the page: the shared α, k, c, the seed and the
#: acceptance family (``acc``, ``acc_profile``: :mod:`dashboard.acceptance`), which several pages
#: read. Streamlit drops from the next page's address every parameter bound to a widget of the page
#: being left, so a page's own seed widget would lose the seed of the page
#: Back returns to; widgets of the entry script are the app's and are exempt. A parameter that a
#: second page starts to read belongs here (``tests/dashboard/test_units.py`` says so).
APP_KEYS = frozenset({*SHARED_KEYS, "seed", "acc", "acc_profile"})

_BY_URL_PATH = {page.url_path: page for page in PAGES.values()}


def by_url_path(url_path: str) -> PageInfo:
    """The page whose address is ``url_path`` ("" for the home page)."""
    return _BY_URL_PATH[url_path]
