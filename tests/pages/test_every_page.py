"""Every page of the registry under AppTest: runs clean at defaults, carries the navigation and the
workaround scripts, names its PNG exports, reads its parameters from the link, and warns (never
crashes) on a bad link."""

import json
import math
import re

import pytest

from dashboard import charts, navigation, workarounds
from dashboard.binding import check_url_value
from dashboard.features.engine_views import RULE_ICON
from dashboard.params import PARAMS
from dashboard.registry import PAGES
from dashboard.ui import CONTEXT_KEY
from tests.app_helpers import (
    CODE_SPAN,
    HOME,
    KL,
    OPTIMAL_K,
    SAMPLING,
    SPEEDUP,
    WITHOUT_CHARTS,
    open_page,
    page_charts,
    page_options,
    switch,
    warnings,
)
from tests.links import CATEGORIES, CONDITIONS, HOSTILE, bad_link, deep_link, hostile_link, url_text


@pytest.mark.parametrize("page_id", PAGES)
def test_page_runs_clean_at_defaults(page_id):
    at = open_page(page_id)
    assert not at.exception
    assert not warnings(at)
    assert not at.error
    if page_id not in WITHOUT_CHARTS:
        shown = page_charts(at)
        assert shown, "every page but the home page and the exercises shows a chart"
        assert all(figure["data"] for figure in shown)
        # The slim white template has defaults for every trace type a chart draws (the Optimal k
        # map's picture is ECharts', read back as an image trace: no template draws it).
        kinds = {t.get("type", "scatter") for figure in shown for t in figure["data"]} - {"image"}
        assert kinds <= set(charts.TRACE_TYPES)


#: Parameters whose value decides whether another one is read (tests.links.CONDITIONS).
ENABLERS = {other for other, _ in CONDITIONS.values()}


def mixed_bad_link(page_id: str) -> tuple[dict[str, list[str]], tuple[str, ...], str | None]:
    """One hand-edited link for the page: its parameters' bad values of one kind (the kinds take
    turns from page to page; each kind's rule is a unit test), one parameter given twice, and a
    parameter the page lacks. Returns (link, keys with a bad value, the repeated key)."""
    keys = PAGES[page_id].params
    category = CATEGORIES[list(PAGES).index(page_id) % len(CATEGORIES)]
    link, bad = bad_link(keys, category)
    # Not a parameter that decides whether another is read: that would change which are read.
    repeatable = [key for key in bad if key not in ENABLERS and key not in CONDITIONS and PARAMS[key].kind != "multi"]
    repeated = repeatable[0] if repeatable else None
    if repeated:  # a bad value, then a good one (the binding reads the last)
        link[repeated] = link[repeated] + deep_link(keys)[repeated]
        bad = tuple(key for key in bad if key != repeated)
    return link | {"nonsense": ["1"]}, bad, repeated


def _widget_value_shown(at, key: str) -> str | None:
    """The value the widget of ``key`` holds, as a warning names it; None for a parameter the
    page reads from the address itself (Step through's step)."""
    param = PARAMS[key]
    value = next((w.value for w in at.get(param.widget_type) if w.key == key), None)
    if value is None:
        return None
    if param.kind == "int":
        value = round(value)  # whole-number boxes are float boxes shown without decimals
    if param.kind == "multi":
        return ", ".join(param.fmt(v) for v in value) or "none"
    return param.fmt(value)


@pytest.mark.parametrize("page_id", PAGES)
def test_a_bad_link_warns_and_never_crashes(page_id):
    """The page reads every parameter through the link checks: it runs and draws, a warning
    names each parameter it could not use with the value its widget holds instead, and the
    address keeps at most one valid value of each."""
    link, bad, repeated = mixed_bad_link(page_id)
    at = open_page(page_id, **link)
    assert not at.exception
    if page_id not in WITHOUT_CHARTS:
        assert page_charts(at), "the page still draws its charts"
    shown = warnings(at)
    assert any("` nonsense `" in w for w in shown), shown
    if repeated:
        assert any(w.startswith(f"`{repeated}` appears 2 times in the link") for w in shown), (repeated, shown)
    for key in [*bad, *([repeated] if repeated else [])]:
        # Its own warning: the unknown parameter's lists every parameter name too.
        (own,) = [w for w in shown if w.startswith(f"`{key}`")] or [None]
        assert own is not None, (key, shown)
        held = _widget_value_shown(at, key)
        if held is not None and PARAMS[key].kind != "text":  # a refused text stays in its box; the default is used
            assert own.endswith(f"; using {held}."), (key, own)
    assert_address_holds_valid_values(at, [*bad, *([repeated] if repeated else [])])


def assert_address_holds_valid_values(at, keys) -> None:
    """After the page has loaded, the address (what a visitor copies) has at most one valid value per key."""
    for key in keys:
        raw = at.query_params.get(key)
        assert raw is None or check_url_value(PARAMS[key], raw) is None, (key, raw)


def _with_zero(page_id) -> list[str]:
    """The page's numeric parameters that can be 0."""
    return [
        key
        for key in PAGES[page_id].params
        if PARAMS[key].kind in ("float", "int") and PARAMS[key].low <= 0 <= PARAMS[key].high
    ]


def _zero_links(page_id) -> list[list[str]]:
    """The page's numeric parameters that can be 0, in groups whose conditions one link can meet
    (Draft trees reads β only under the linear cost, its link overrides only under the roofline)."""
    groups: list[tuple[dict, list[str]]] = []
    for key in _with_zero(page_id):
        needs = dict([CONDITIONS[key]]) if key in CONDITIONS else {}
        group = next((g for g in groups if all(g[0].get(o, v) == v for o, v in needs.items())), None)
        if group is None:
            groups.append((needs, [key]))
        else:
            group[0].update(needs)
            group[1].append(key)
    return [keys for _, keys in groups]


@pytest.mark.parametrize(
    ("page_id", "keys"),
    [(page, keys) for page in PAGES for keys in _zero_links(page)],
    ids=[f"{page}-{keys[0]}" for page in PAGES for keys in _zero_links(page)],
)
def test_minus_zero_in_a_link_is_zero(page_id, keys):
    """``?alpha=-0`` is a valid 0 that Streamlit kept as -0.0: the page showed "α = -0" and a
    copied link carried the -0 on."""
    enable = {other: url_text(PARAMS[other], value) for key, (other, value) in CONDITIONS.items() if key in keys}
    at = open_page(page_id, **enable, **{key: "-0" for key in keys})
    assert not at.exception
    # None about the link; the engines' rules for the settings it enables (a model-free drafter) may speak.
    assert not [w.value for w in at.warning if w.icon != RULE_ICON]
    values = at.session_state[CONTEXT_KEY].values
    for key in keys:
        assert values[key] == 0 and math.copysign(1.0, values[key]) == 1.0, key
        assert at.query_params.get(key) in (None, "0"), key  # absent where 0 is the default
    shown = [f"{m.label} {m.value}" for m in at.metric] + [e.value for e in (*at.markdown, *at.caption)]
    shown += [json.dumps(figure["layout"]) for figure in page_charts(at)]
    assert not [text for text in shown if re.search(r"(?<![\w.])-0(?![\d.])", text)]


def _open_navigation(at):
    """Open the sidebar's list of pages, as a click on it does (its state is a widget's)."""
    at.session_state[navigation.PAGES_KEY] = True
    return at.run()


@pytest.mark.parametrize("page_id", PAGES)
def test_every_page_carries_the_navigation(page_id):
    """The sidebar links every page of the registry, in its order, with its title, in an
    expander, closed at first: open, the links filled a 1024 × 768 screen and pushed α, k, c
    below it. Closed, it sends no link, so that a press of α, k or c does not redraw them."""
    at = open_page(page_id)
    (expander,) = at.sidebar.expander
    assert (expander.label, expander.proto.expanded) == (navigation.PAGES_LABEL, False)
    assert at.sidebar.get("page_link") == []
    (expander,) = _open_navigation(at).sidebar.expander
    links = [element.proto for element in expander.get("page_link")]
    assert len(links) == len(at.sidebar.get("page_link"))
    assert [link.label for link in links] == [page.title for page in PAGES.values()]
    assert [link.page for link in links] == [page.url_path for page in PAGES.values()]


@pytest.mark.parametrize("page_id", PAGES)
def test_every_chart_exports_a_named_image(page_id):
    """Each chart's download button saves it under a name from the page's settings: a plotly chart
    as a PNG at twice the scale, an ECharts chart as the SVG it is drawn as."""
    at = open_page(page_id)
    configs = [json.loads(element.proto.config) for element in at.get("plotly_chart")]
    tools = [json.loads(element.proto.spec)["toolbox"]["feature"] for element in at.get("echarts_chart")]
    assert bool(configs or tools) == (page_id not in WITHOUT_CHARTS)
    assert all(
        config["toImageButtonOptions"] | {"filename": ""} == {"format": "png", "scale": 2, "filename": ""}
        for config in configs
    )
    assert all(tool["saveAsImage"]["type"] == "svg" for tool in tools)
    names = [config["toImageButtonOptions"]["filename"] for config in configs]
    names += [tool["saveAsImage"]["name"] for tool in tools]
    assert all(name and name.isprintable() and "/" not in name for name in names), names
    assert len(set(names)) == len(names), "two charts of one page would save under one name"


@pytest.mark.parametrize("page_id", PAGES)
def test_every_point_with_hover_text_can_be_hovered(page_id):
    """ECharts opens an item's tooltip over its symbol only: a line series whose points carry hover
    text shows symbols, seen or not (``charts.echart.hover_points``); a silent series has none. A
    chart with one tooltip for the hovered x (``charts.echart.axis_tooltip``) lists every line."""
    at = open_page(page_id)
    for spec in page_options(at):
        if spec["tooltip"]["trigger"] == "axis":
            assert all(not isinstance(item, dict) for s in spec["series"] if s["type"] == "line" for item in s["data"])
            continue
        for series in spec["series"]:
            tooltips = any(isinstance(item, dict) and "tooltip" in item for item in series.get("data", []))
            if series.get("type") == "line" and tooltips and not series.get("silent"):
                assert series.get("showSymbol", True), series["name"]


def test_home_links_every_page():
    at = open_page(HOME)
    linked = {element.proto.page for element in at.get("page_link")}
    assert {"Speedup", "Optimal_k", "Rejection_sampling", "Acceptance_vs_KL"} <= linked


def test_home_states_the_best_k_at_the_shared_values():
    at = open_page(HOME)
    assert "the best draft length is **k = 8**: **3.09×**" in at.info[0].value
    switch(at, SPEEDUP).run()
    at.slider(key="alpha").set_value(0.9).run()
    switch(at, HOME).run()
    assert "At α = 0.9 and c = 20" in at.info[0].value
    assert "**k = 13**: **4.67×**" in at.info[0].value


def test_navigation_links_carry_the_shared_parameters():
    at = _open_navigation(open_page(SPEEDUP, alpha="0.55", k="3", c="50"))
    links = {element.proto.page: element.proto.query_string for element in at.sidebar.get("page_link")}
    assert links["Speedup"] == "alpha=0.55&k=3&c=50"
    assert links["Optimal_k"] == "alpha=0.55&c=50"  # that page has no k
    assert links["Rejection_sampling"] == ""  # and this one none of them
    # The values stay with the session: a page without them still links them on.
    switch(at, SAMPLING)
    links = {
        element.proto.page: element.proto.query_string for element in _open_navigation(at).sidebar.get("page_link")
    }
    assert links["Optimal_k"] == "alpha=0.55&c=50"


@pytest.mark.parametrize("page_id", PAGES)
def test_every_page_carries_the_workaround_scripts(page_id):
    """Every page carries the script that turns a link click into one history step (without it
    Streamlit's own click loses the link's values)."""
    script = workarounds.sidebar_html()
    sidebar_html = [element.proto for element in open_page(page_id).sidebar.get("html")]
    scripts = [proto for proto in sidebar_html if proto.body == script]
    assert len(scripts) == (1 if workarounds.ACTIVE else 0)
    assert all(proto.unsafe_allow_javascript for proto in scripts)


# --- Links: query parameters set the widgets; bad values warn ------------------------------


def test_query_parameters_set_every_widget():
    at = open_page(SPEEDUP, alpha="0.63", k="12", c="45", compare=["0.2", "0.4"])
    assert not warnings(at)
    assert at.slider(key="alpha").value == 0.63
    assert at.slider(key="k").value == 12
    assert at.select_slider(key="c").value == 45
    assert at.multiselect(key="compare").value == [0.2, 0.4]
    at = open_page(OPTIMAL_K, alpha="0.9", c="50", max_k="30")
    assert not warnings(at)
    assert at.slider(key="max_k").value == 30
    at = open_page(SAMPLING, preset="random", vocab="12", n="1M", seed="99")
    assert not warnings(at)
    assert (at.selectbox(key="preset").value, at.slider(key="vocab").value) == ("random", 12)
    assert (at.select_slider(key="n").value, at.number_input(key="seed").value) == (1_000_000, 99)
    at = open_page(KL, pairs="300", kl_vocab="50", seed="1", logx="true")
    assert not warnings(at)
    assert at.toggle(key="logx").value is True


def _messages(at) -> list[str]:
    return [element.value for kind in ("warning", "error", "info", "success") for element in getattr(at, kind)]


def assert_literal(messages: list[str]) -> None:
    """Outside text in ``messages`` only inside code spans, where no Markdown is parsed: outside
    them no address, link, image, HTML, LaTeX, directive, heading or hidden character."""
    for text in messages:
        prose = CODE_SPAN.sub("", text)
        assert not re.search(r"e\.vil|\]\(|!\[|<|\$|:red|:material|^\s*#", prose, re.MULTILINE), text
        assert not any(char in text for char in "\u202e\u200b\x07"), text
        assert len(text) < 800, f"a message of {len(text)} characters"


@pytest.mark.parametrize("page_id", PAGES)
def test_hostile_links_reach_messages_only_as_literal_text(page_id):
    info = PAGES[page_id]
    at = open_page(page_id, **hostile_link(info.params + info.url_params))
    assert not at.exception
    messages = _messages(at)
    assert messages, "a hostile link passed without a word"
    assert_literal(messages)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_paste_reaches_calibrates_messages_only_as_literal_text(hostile):
    at = open_page("calibrate")
    for paste in (
        f"SpecDecoding metrics: Mean acceptance length: 2.5, Per-position acceptance rate: 0.5, {hostile}",
        f"{hostile}\nspeculative decoding {hostile}",
        # A parser quotes a label it cannot read: the paste's own text reaches the message.
        "vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 40\n"
        "vllm:spec_decode_num_accepted_tokens_total 20\n"
        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{position="{hostile[:60]}"}} 5\n',
    ):
        at.text_area(key="engine_paste").set_value(paste).run()
        assert not at.exception
        assert_literal(_messages(at) + [c.value for c in at.caption])
