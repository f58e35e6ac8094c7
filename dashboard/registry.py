"""The page registry: the one list of the dashboard's pages.

The router (``app.py``), the navigation, the home page's cards, the tests, the benches and the
screenshot script all read :data:`PAGES`. A new page is one entry here and one script in
``app_pages/``; everything else follows from the entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from dashboard.params import SHARED_KEYS
from dashboard.params.verification import LOSSY_PARAMS


@dataclass(frozen=True)
class PageInfo:
    """A page: its script, title, icon and address, the parameters it reads, its home-page card.

    ``params`` are the widget parameters (``dashboard.params.PARAMS``) in the order the page shows
    them (a page may read one from the address itself, as the Step through page its step, whose
    range depends on k); ``url_params`` the hand-encoded query parameters beyond them (the typed
    p and q).
    """

    id: str
    script: str
    title: str
    icon: str
    url_path: str  # "" for the home page
    params: tuple[str, ...] = ()
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
    def shared_params(self) -> tuple[str, ...]:
        """The shared α, k, c this page reads, in its order: the navigation carries them along."""
        return tuple(key for key in self.params if key in SHARED_KEYS)

    @property
    def app_params(self) -> tuple[str, ...]:
        """The parameters of this page whose widgets the router creates (see :data:`APP_KEYS`)."""
        return tuple(key for key in self.params if key in APP_KEYS)


HOME = PageInfo("home", "app_pages/home.py", "Home", ":material/home:", "")

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
            ("alpha", "k", "c", "compare", "published"),
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
            ("alpha", "c", "max_k", "view"),
            "The best k and the best speedup over every (α, c), with the chapter's table to download.",
            chapter=True,
        ),
        PageInfo(
            "sampling",
            "app_pages/rejection_sampling.py",
            "Rejection sampling",
            ":material/casino:",
            "Rejection_sampling",
            ("preset", "vocab", "n", "seed"),
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
            ("pairs", "kl_vocab", "seed", "logx"),
            "α against KL(p‖q) for random pairs, with the Pinsker and Bretagnolle–Huber bounds.",
            chapter=True,
        ),
        PageInfo(
            "simulator",
            "app_pages/simulator.py",
            "Simulator",
            ":material/play_circle:",
            "Simulator",
            ("k", "c", "target", "draft", "contexts", "temperature", "noise", "chain_vocab", "tokens", "seed"),
            "Run the whole algorithm on a toy language, token by token: where the closed form "
            "holds, where it does not, and what an engine's per-position counters mean.",
        ),
        PageInfo(
            "step_through",
            "app_pages/step_through.py",
            "Step through",
            ":material/skip_next:",
            "Step",
            (
                "step",
                "k",
                "c",
                "step_draft",
                "step_noise",
                "step_temperature",
                "step_contexts",
                "greedy",
                "step_proposal",
                "step_verification",
                "seed",
                "presenter",
            ),
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
            (
                "k",
                "c",
                "drafts",
                "accepted",
                "target_ms",
                "draft_ms",
                "cal_schedule",
                "cal_target_model",
                "cal_draft_model",
                "cal_gpu",
                "cal_precision",
                "cal_drafter_kind",
                "cal_lookup_ms",
                "cal_tp",
                "cal_draft_tp",
                "cal_interconnect",
                "cal_link_bandwidth",
                "cal_link_latency_us",
                "cal_batch",
                "cal_context",
                "cal_max_batch",
                "cal_method",
                "cal_drafter",
                "cal_data_parallel",
                "cal_n_predict",
            ),
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
            (
                "alpha",
                "k",
                "target_model",
                "draft_model",
                "gpu",
                "precision",
                "drafter_kind",
                "lookup_ms",
                "tp",
                "draft_tp",
                "interconnect",
                "link_bandwidth",
                "link_latency_us",
                "batch",
                "context",
                "overhead_ms",
                "bandwidth",
                "peak",
                "max_batch",
                "method",
                "drafter",
                "data_parallel",
                "n_predict",
            ),
            "When verification is not free: a roofline model of draft and target on your GPU, "
            "the best k as the batch grows, and the arithmetic speculation costs.",
            # Without a KV cache to read, speculation stops paying from batch 242 on: a k = 0 range.
            # A mixture of experts on two GPUs: its verify pass against a dense model's, and the
            # (batch, context) map where long contexts make speculation pay again.
            views=(
                ("schedule", "context=0&max_batch=1024#a-batch-size-schedule-of-k-for-your-engine"),
                (
                    "experts",
                    "target_model=Qwen3-30B-A3B&draft_model=Qwen3-30B-A3B-EAGLE-3&method=eagle3&gpu=H200+SXM&tp=2&draft_tp=2"
                    "#experts-tensor-parallelism-and-long-contexts",
                ),
            ),
        ),
        PageInfo(
            "trees",
            "app_pages/draft_trees.py",
            "Draft trees",
            ":material/account_tree:",
            "Trees",
            (
                "tree_source",
                "alpha",
                "tree_target",
                "tree_chain_vocab",
                "tree_contexts",
                "seed",
                "budget",
                "depth",
                "topk",
                "steps",
                "c",
                "tree_cost",
                "tree_beta",
                "tree_target_model",
                "tree_gpu",
                "tree_precision",
                "tree_batch",
                "tree_context",
                "tree_tp",
                "tree_interconnect",
                "tree_link_bandwidth",
                "tree_link_latency_us",
            ),
            "Draft a tree instead of a chain: the best tree for a budget under positional acceptance, "
            "what SGLang's EAGLE settings build, and when verifying a bigger tree stops paying.",
            url_params=("acceptance",),
        ),
        PageInfo(
            "verification",
            "app_pages/verification_rules.py",
            "Verification rules",
            ":material/rule:",
            "Verification_rules",
            (
                "vr_preset",
                "vr_context",
                "vr_temperature",
                *(param.key for param in LOSSY_PARAMS),  # each lossy rule's settings, from specmath's RULES
                "k",
                "c",
            ),
            "Rejection sampling against what engines run: greedy drafts, exact match, lossy "
            "thresholds and block verification, at any temperature.",
            url_params=("lp", "lq"),
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

#: Parameters whose widgets the router creates, not the page: the shared α, k, c and the seed,
#: which several pages read. Streamlit drops from the next page's address every parameter bound
#: to a widget of the page being left, so a page's own seed widget would lose the seed of the page
#: Back returns to; widgets of the entry script are the app's and are exempt. A parameter that a
#: second page starts to read belongs here (``tests/dashboard/test_units.py`` says so).
APP_KEYS = frozenset({*SHARED_KEYS, "seed"})

_BY_URL_PATH = {page.url_path: page for page in PAGES.values()}


def by_url_path(url_path: str) -> PageInfo:
    """The page whose address is ``url_path`` ("" for the home page)."""
    return _BY_URL_PATH[url_path]
