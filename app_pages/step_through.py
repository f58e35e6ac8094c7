"""Step through: one speculative iteration, a step at a time, on a toy language that reads.

The iteration is ``specmath.speculative_iteration`` on the toy language's target and draft
(``dashboard.toy_language``), token by token or block verified, the draft sampled or greedy
(``step_through.run``); how the steps are numbered is ``dashboard.features.step_through``, and
what each shows from its trace ``dashboard.features.step_views``. The step is in the address
like every setting, and Next and Back move it; so do a clicker's keys, wherever the focus is
(``dashboard/js/step_keys.js``).
"""

import streamlit as st

from dashboard import texts, ui
from dashboard.features import step_through, step_views
from dashboard.params import PARAMS, STEP_MAX_K

ctx = ui.page()

#: st.session_state key of the step this page last wrote to the address (None for step 1).
WRITTEN = "step_written"

#: The page starts higher than Streamlit's default, so that the chart fits a 720 px screen; the
#: keys' script takes no room. Streamlit's main area takes the focus on a click (it is focusable,
#: for keyboard scrolling) and draws a grey ring inside its edges once a key is pressed while it
#: has it (``stMain``'s ``:focus-visible::before``, an inset box shadow): on this page a clicker's
#: keys move the step and never scroll, so the ring, a frame around the slide, is turned off.
PAGE_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 2rem; }
[data-testid="stElementContainer"]:has(> [data-testid="stHtml"] > script#sde-step-keys) { display: none; }
[data-testid="stMain"]:focus-visible::before { box-shadow: none; }
.st-key-step_legend p { line-height: 1.5; }
</style>
"""

#: Presenter mode: a 1024 × 768 slide, every text at least 18 px. The page's title and the toggle
#: go up into Streamlit's header bar (fixed there, above it), where only its menu and the
#: sidebar's button are; the step's numbers are a row under the sentence, its explanation beside
#: the chart. CSS only: the classes are Streamlit's ``st-key-<key>``.
PRESENTER_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding-top: 4.5rem; padding-bottom: 0; }
[data-testid="stElementContainer"]:has(> [data-testid="stHeading"] h1) {
  position: fixed; top: 0.6rem; left: 4rem; width: auto; z-index: 999991;
}
[data-testid="stMainBlockContainer"] h1 { font-size: 1.5rem; padding: 0.25rem 0; }
.st-key-step_presenter {
  position: fixed; top: 0.85rem; right: 4rem; width: auto; z-index: 999991;
}
.st-key-step_presenter p { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] p,
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] li { font-size: 1.2rem; line-height: 1.45; }
[data-testid="stMainBlockContainer"] [data-testid="stMarkdownContainer"] h4 { font-size: 1.55rem; padding: 0; }
[data-testid="stMainBlockContainer"] .st-key-step_heading [data-testid="stMarkdownContainer"] h4 { font-size: 1.35rem; }
[data-testid="stMainBlockContainer"] [data-testid="stCaptionContainer"] p { font-size: 1.15rem; }
[data-testid="stMainBlockContainer"] [data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {
  font-size: 1.75rem; line-height: 1.3;
}
[data-testid="stMainBlockContainer"] [data-testid="stMetricLabel"] [data-testid="stMarkdownContainer"] p {
  font-size: 1.15rem;
}
.st-key-step_legend p { font-size: 1.15rem; }
.st-key-step_back button, .st-key-step_next button { min-height: 4rem; padding: 0 1.5rem; }
.st-key-step_back button p, .st-key-step_next button p { font-size: 1.6rem; font-weight: 600; }
</style>
"""


def _write_step(number: int) -> None:
    """Put step ``number`` in the address (step 1, the default, as no parameter)."""
    text = None if number == 1 else str(number)
    current = st.query_params.get_all("step")
    if text is None and current:
        del st.query_params["step"]
    elif text is not None and current != [text]:
        st.query_params["step"] = text
    st.session_state[WRITTEN] = text


def _jumped() -> None:
    """The step slider moved: its step goes to the address, which the rerun reads."""
    _write_step(st.session_state["step_slider"])


def _step(k: int, total: int) -> int:
    """The step the address asks for, within 1 … ``total``, and the slider that shows and moves it.

    The step is read from the address here, not bound to a widget: its range depends on k, and
    a bound slider can neither take a step past a shorter draft's end nor be set to the nearest
    step with the address following. A link's step that cannot be used is named in a warning with
    the step used instead; a step this page wrote, past the end once k was shortened, in a note.
    """
    raw = ctx.raw_url.get("step")
    number, problem = step_through.read_step(raw, total)
    if problem:
        if raw == [st.session_state.get(WRITTEN)]:
            ctx.notices.info(f"k = {k} has {total} steps: showing step {number}, its last.", icon="ℹ️")
        else:
            ctx.notices.warning(f"{problem}; using step {number} of {total} (k = {k}).", icon="⚠️")
    _write_step(number)
    st.session_state["step_slider"] = number
    param = PARAMS["step"]
    st.sidebar.slider(param.label, 1, total, key="step_slider", on_change=_jumped, help=param.help)
    return number


def view() -> None:
    shared_k, c, seed = ctx.values["k"], ctx.values["c"], ctx.values["seed"]
    k = step_through.page_k(shared_k)
    total = step_through.total_steps(k)
    st.sidebar.subheader(step_through.STEP.title)
    number = _step(k, total)
    # The proposal and the verification are for sampling only, at their defaults under greedy decoding:
    # at temperature 0 the draft proposes its argmax and block keeps what token keeps.
    ctx.show(step_through.ITERATION)
    ctx.show(step_through.TOY_LANGUAGE)
    greedy, proposal, verification, kind = (ctx.values[key] for key in (*step_through.ITERATION.keys, "step_draft"))
    strength = ctx.shown_for(step_through.TOY_LANGUAGE, "step_draft")
    if shared_k > STEP_MAX_K:
        st.info(
            f"The shared draft length is k = {shared_k}; this page steps through at most {STEP_MAX_K} "
            f"draft words, so it uses k = {k}. The other pages keep k = {shared_k}.",
            icon="ℹ️",
        )

    run = step_through.run(
        kind, strength, k, seed, greedy=greedy, proposal=proposal, verification=verification
    )  # fmt: skip
    trace, opening = run.trace, run.opening
    shown = step_views.build(
        trace, number, opening, c, large=ctx.values["presenter"], draft_chain=run.draft_chain
    )  # fmt: skip
    checked = step_through.last_checked(trace)
    back = step_through.previous_step(number, k, checked)
    forward = step_through.next_step(number, k, checked)

    presenter = ctx.values["presenter"]
    # In presenter mode the heading wraps inside the row, the help button at its end.
    buttons = st.container(horizontal=True, vertical_alignment="center", wrap=not presenter)
    buttons.button(
        "◀ Back", key="step_back", on_click=_write_step, args=(back,), disabled=back is None, shortcut="PageUp"
    )
    buttons.button(
        "Next ▶",
        key="step_next",
        on_click=_write_step,
        args=(forward,),
        disabled=forward is None,
        type="primary",
        shortcut="PageDown",
    )
    buttons.container(key="step_heading", width="stretch").markdown(f"#### {shown.heading}")
    outline = step_through.outline(k, block=step_through.is_block(trace))
    if presenter:
        # The slide has no room for the numbering and the page's explanation: they open on a click.
        with buttons.popover(":material/info:", help="How the steps are numbered, and what they show"):
            st.caption(outline)
            st.markdown(texts.STEP_EXPLAINER)
    st.markdown(f"#### {shown.sentence}")
    # The chart first, under the sentence, so that it is on the first screen. In presenter mode
    # (the sidebar closed) the legend is one line, the step's numbers a row above the chart and
    # its explanation beside it; else they are under it.
    if presenter:
        st.container(key="step_legend").markdown(" · ".join(step_views.legend()))
        metrics = ui.metric_row()  # filled after the chart (see ui.interactive)
        chart, words = st.columns([2, 1], gap="medium")
    else:
        chart, numbers = st.container(), st.container()
        metrics = ui.metric_row(numbers)
        numbers.container(key="step_legend").markdown("  \n".join(step_views.legend()))
        words = numbers
    words.container(key="step_text").markdown(shown.text)
    name = f"step{number}_{shown.name}_{kind}{strength:g}_k{k}_seed{seed}" + ("_greedy" if greedy else "")
    name += ("_greedydraft" if proposal == "greedy_draft" else "") + ("_block" if verification == "block" else "")
    with chart:
        ui.chart(shown.figure, name)
    for label, value in shown.metrics:
        metrics.metric(label, value)
    if not presenter:
        st.caption(outline)


st.html(PAGE_CSS)
st.html(step_through.key_script(), unsafe_allow_javascript=True)
ctx.show(step_through.PRESENTER, st.container(key="step_presenter"))
presenter = ctx.values["presenter"]
if presenter:
    # Public API, called after the router's own call: the later call's sidebar state wins.
    st.set_page_config(initial_sidebar_state="collapsed")
    st.html(PRESENTER_CSS)
ui.interactive(ctx, view)
if not presenter:
    st.markdown(texts.STEP_EXPLAINER)
