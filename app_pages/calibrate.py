"""Calibrate: from what a serving engine printed to the real α, the profile and the k to use."""

import streamlit as st

import specmath
from dashboard import cached, calibrate_input, charts, engine_examples, navigation, texts, ui
from dashboard.features import hardware
from dashboard.literal import literal
from dashboard.params import CALIBRATE_KEYS

#: Characters shown of a parser's message or note (they are sentences, with quoted bits of the paste).
MESSAGE_LIMIT = 600

PASTE = "engine_paste"  # st.session_state key of the text area


def _load_example(name: str) -> None:
    st.session_state[PASTE] = engine_examples.EXAMPLES[name]


def _acceptance_rate(measurement: calibrate_input.Measurement, alpha: float) -> None:
    """The engine's accepted / drafted beside the i.i.d. α, the conditional rates and the mean length."""
    k = measurement.k
    st.subheader(texts.ACCEPT_RATE_HEADING)
    row = ui.metric_row()
    row.metric("Engine's draft acceptance rate", f"{100 * measurement.accept_rate:.1f}%", help="accepted ÷ drafted")
    row.metric("i.i.d. α per token", f"{alpha:.3f}")
    row.metric(
        f"Rate α predicts at k = {k}",
        f"{100 * float(specmath.draft_acceptance_rate(alpha, k)):.1f}%",
        help="(α − α^(k+1)) / ((1 − α) k)",
    )
    row.metric("Mean length (sets the speedup)", f"{measurement.mean_length:.2f}", help="tokens per target call")
    if measurement.per_position is not None:
        conditional = specmath.conditional_acceptance(measurement.per_position)
        shown = ", ".join(f"{x:.2f}" for x in conditional)
        st.caption(f"Conditional per-position rates P(token i accepted | tokens before it accepted): {shown}")
    st.markdown(texts.ACCEPT_RATE_EXPLAINER)


ctx = ui.page()


def view() -> None:
    slider_k, c = ctx.values["k"], ctx.values["c"]
    st.sidebar.subheader("Step times (optional)")
    target_ms = ctx.widget("target_ms")
    draft_ms = ctx.widget("draft_ms")
    if target_ms > 0 and draft_ms > 0:
        c = float(specmath.cost_ratio_from_times(target_ms, draft_ms))
        st.sidebar.caption(
            f"c = {target_ms:g} / {draft_ms:g} = {c:.3g} from your step times (the c slider is ignored)."
        )
    st.sidebar.subheader("Schedule for your engine (optional)")
    chosen = {key: ctx.widget(f"cal_{key}") for key in CALIBRATE_KEYS} if ctx.widget("cal_schedule") else None
    if chosen is None and target_ms > 0 and draft_ms > 0:
        st.sidebar.caption(texts.CALIBRATE_SCHEDULE_HINT)

    paste_column, counts_column = st.columns([3, 2])
    with paste_column:
        st.markdown("**Paste your engine's output** (log lines or a `/metrics` scrape), or load an example:")
        # A row that wraps: in five equal columns the names were cut to "vL…" at 1024 px.
        examples = st.container(horizontal=True, wrap=True)
        for name in engine_examples.EXAMPLES:
            examples.button(name, on_click=_load_example, args=(name,))
        text = st.text_area(
            "Engine output",
            key=PASTE,
            height=200,
            help=f"Any length: its last {calibrate_input.MAX_PASTE_CHARS:,} characters are read, "
            "where the latest reports are.",
            placeholder="e.g. SpecDecoding metrics: Mean acceptance length: 2.80, Accepted: 1800 tokens, …",
        )
    with counts_column:
        st.markdown("**…or enter counts** (draft length: the k slider; ignored while the paste box has text)")
        drafts = ctx.widget("drafts", counts_column)
        accepted = ctx.widget("accepted", counts_column)

    if text and not text.isspace():  # no copy of a long paste, as strip() would make
        measurement = calibrate_input.from_paste(text, slider_k)
    else:
        measurement = calibrate_input.from_counts(slider_k, drafts, accepted)
    if isinstance(measurement, str):
        # A parser's message may quote the paste: shown as its characters, never as Markdown.
        st.error(literal(measurement, limit=MESSAGE_LIMIT))
        return

    result = cached.calibration(measurement, c)
    st.success(f"Measured from the {measurement.source}: k = {measurement.k}.")
    for note in measurement.notes:
        st.caption(literal(note, limit=MESSAGE_LIMIT))

    fit = result.fit
    row = ui.metric_row()
    row.metric(
        "Mean acceptance length", f"{measurement.mean_length:.3f}", help="tokens per target call, bonus included"
    )
    row.metric("Fitted i.i.d. α", f"{fit.alpha:.3f}")
    row.metric(
        "95% interval for α",
        f"{fit.low:.3f} – {fit.high:.3f}" if result.has_interval else "—",
        help=None if result.has_interval else "needs the counts (drafts and accepted tokens)",
    )
    row.metric(f"Speedup now (k = {measurement.k}, c = {c:.3g})", f"{result.measured_speedup:.2f}×")
    row.metric("Recommended k", f"{result.recommended_k} → {result.recommended_speedup:.2f}×")

    if measurement.tree_topk is not None and measurement.tree_topk > 1:
        st.warning(texts.TREE_WARNING.format(topk=measurement.tree_topk))
        navigation.page_link("trees", label="Open Draft trees")
    if measurement.accept_rate is not None:
        _acceptance_rate(measurement, fit.alpha)

    has_profile = measurement.per_position is not None
    left, right = ui.side_by_side() if has_profile else (st.container(), None)
    with left:
        ui.chart(
            charts.calibrated_speedup(
                result.k_axis,
                result.iid,
                result.iid_band,
                result.profile,
                measurement.k,
                0 if measurement.per_position is None else measurement.per_position.size,
                c,
                (fit.alpha, fit.low, fit.high),
            ),
            f"calibrated_speedup_k{measurement.k}_c{c:.3g}",
        )
    if has_profile:
        with right:
            ui.chart(
                charts.position_acceptance(
                    measurement.per_position, specmath.conditional_acceptance(measurement.per_position), fit.alpha
                ),
                f"engine_position_acceptance_k{measurement.k}",
            )
    else:
        st.info("This measurement has no per-position rates; the prediction uses the i.i.d. fit only.")
    if chosen is not None:
        step_times = (target_ms, draft_ms) if target_ms > 0 and draft_ms > 0 else None
        hardware.calibrated(measurement, result, chosen, step_times)


ui.interactive(ctx, view)
st.markdown(texts.CALIBRATE_EXPLAINER)
