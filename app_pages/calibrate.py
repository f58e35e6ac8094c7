"""Calibrate: from what a serving engine printed to the real α, the profile and the k to use."""

import numpy as np
import streamlit as st

import specmath
from dashboard import acceptance, charts, navigation, texts, ui
from dashboard.address import literal
from dashboard.features import calibrate, calibrate_examples, calibrate_schedule, calibrate_sweep
from dashboard.params import CALIBRATE_KEYS, PARAMS

#: Characters shown of a parser's message or note (they are sentences, with quoted bits of the paste).
MESSAGE_LIMIT = 600

PASTE, ASK_K = calibrate.PASTE, calibrate.ASK_K


def _new_paste() -> None:
    st.session_state[ASK_K] = None  # a k given for another paste is not this one's
    calibrate.hold_paste_counts()


def _load_example(name: str) -> None:
    st.session_state[PASTE] = calibrate_examples.EXAMPLES[name]
    _new_paste()


def _ask_k(unknown: calibrate.KUnknown, container) -> int | None:
    """Say that the paste has no k and what the fit would be at two; the k the user gives, if any."""
    mean = unknown.mean_length
    if mean is not None and mean >= 1.0:
        small, large = max(1, int(mean)), max(8, int(mean) + 5)
        alphas = [specmath.acceptance(lengths={k: mean}).fitted_alpha().alpha for k in (small, large)]
        container.warning(
            texts.CALIBRATE_ASK_K.format(
                source=unknown.source,
                mean=mean,
                k_small=small,
                alpha_small=alphas[0],
                k_large=large,
                alpha_large=alphas[1],
            )
        )
    else:
        container.warning(f"**{unknown.source} does not print the draft length k**: enter it below.")
    if unknown.source.startswith("SGLang"):
        container.caption(texts.CALIBRATE_ASK_K_SGLANG)
        for note in unknown.notes:  # the parser's reading of the rate says the k it fits (a note again once fitted)
            if "accept rate" in note and st.session_state.get(ASK_K) is None:
                container.caption(literal(note, limit=MESSAGE_LIMIT))
    top = int(PARAMS["k"].high)
    return container.number_input(
        "Draft length k of this run", min_value=1, max_value=top, value=None, step=1, key=ASK_K,
        placeholder="the k your engine ran with", on_change=calibrate.hold_paste_counts,
    )  # fmt: skip


def _acceptance_rate(measurement: calibrate.Measurement, alpha: float) -> None:
    """The engine's accepted / drafted beside the i.i.d. α, the conditional rates and the mean length."""
    st.subheader(texts.ACCEPT_RATE_HEADING)
    row = ui.metric_row()
    row.metric("Engine's draft acceptance rate", f"{100 * measurement.accept_rate:.1f}%", help="accepted ÷ drafted")
    row.metric("i.i.d. α per token", f"{alpha:.3f}")
    label, value, about = calibrate.predicted_rate_metric(measurement, alpha)
    row.metric(label, value, help=about)
    row.metric("Mean length (sets the speedup)", f"{measurement.mean_length:.2f}", help="tokens per target call")
    converted = calibrate.rate_conversion(measurement)
    if converted:
        st.caption(converted)
    if measurement.per_position is not None:
        conditional = specmath.acceptance(per_position=measurement.per_position).conditional
        shown = ", ".join(f"{x:.2f}" for x in conditional)
        st.caption(f"Conditional per-position rates P(token i accepted | tokens before it accepted): {shown}")
    st.markdown(texts.ACCEPT_RATE_EXPLAINER)
    rule, query = calibrate.rule_cause()
    st.markdown(rule)
    navigation.page_link("verification", label="Open Verification rules on the close pair at T = 1", query_params=query)


ctx = ui.page()


def _carry(value: specmath.Acceptance | None, what: str) -> None:
    """Links that open Hardware and Draft trees with ``value`` as their acceptance (a typed profile)."""
    if value is None:
        return
    query = acceptance.link_query(value)
    links = st.container(horizontal=True, wrap=True)
    navigation.page_link("hardware", links, label=f"Open Hardware with this {what}", query_params=query)
    navigation.page_link("trees", links, label=f"Open Draft trees with this {what}", query_params=query)


def view() -> None:
    ctx.show(calibrate.STEP_TIMES)
    slider_k, c, target_ms, draft_ms = (ctx.values[key] for key in ("k", "c", *calibrate.STEP_TIMES.keys))
    if target_ms > 0 and draft_ms > 0:
        c = float(specmath.cost_ratio_from_times(target_ms, draft_ms))
        st.sidebar.caption(
            f"c = {target_ms:g} / {draft_ms:g} = {c:.3g} from your step times (the c slider is ignored)."
        )
    ctx.show(calibrate.SCHEDULE)
    chosen = None
    if ctx.values["cal_schedule"]:  # the Hardware page's settings, under their names there
        chosen = {key.removeprefix("cal_"): ctx.values[key] for key in CALIBRATE_KEYS}
    if chosen is None and target_ms > 0 and draft_ms > 0:
        st.sidebar.caption(texts.CALIBRATE_SCHEDULE_HINT)

    paste_column, counts_column = st.columns([3, 2])
    with paste_column:
        st.markdown(
            "**Paste your engine's output** (log lines, a `/metrics` scrape, a benchmark's result, per-request "
            "metrics or a `bench_speculative.py` sweep), or load an example:"
        )
        # A row that wraps: in five equal columns the names were cut to "vL…" at 1024 px.
        examples = st.container(horizontal=True, wrap=True)
        for name in calibrate_examples.EXAMPLES:
            examples.button(name, on_click=_load_example, args=(name,))
        text = st.text_area(
            "Engine output",
            key=PASTE,
            height=200,
            on_change=_new_paste,
            help=f"Any length: its last {calibrate.MAX_PASTE_CHARS:,} characters are read, "
            "where the latest reports are.",
            placeholder="e.g. SpecDecoding metrics: Mean acceptance length: 2.80, Accepted: 1800 tokens, …",
        )
    with counts_column:
        st.markdown("**…or enter counts** (draft length: the k slider; while the paste box has text, the paste's)")
        ctx.show(calibrate.COUNTS, counts_column)
        drafts, accepted = (ctx.values[key] for key in calibrate.COUNTS.keys)

    pasted = bool(text) and not text.isspace()  # no copy of a long paste, as strip() would make
    if pasted:
        tail, read = calibrate.paste_tail(text)
        if calibrate_sweep.is_sweep(tail):  # a sweep of runs, not one report: its own view
            if read:
                st.caption(read)
            result = calibrate_sweep.sweep_result(tail)
            if isinstance(result, str):
                st.error(literal(result, limit=MESSAGE_LIMIT))
            else:
                _carry(calibrate.curve_acceptance(result.curve), "curve")
                calibrate_sweep.show(result, chosen)
            return
        measurement = calibrate.from_paste(text)
        if isinstance(measurement, calibrate.KUnknown):
            given = _ask_k(measurement, paste_column)
            if given is None:
                st.info(texts.CALIBRATE_WAITING_FOR_K)
                return
            measurement = calibrate.from_paste(text, int(given))
    else:
        measurement = calibrate.from_counts(slider_k, drafts, accepted)
    if isinstance(measurement, str):
        # A parser's message may quote the paste: shown as its characters, never as Markdown.
        st.error(literal(measurement, limit=MESSAGE_LIMIT))
        return

    result = calibrate.calibration(measurement, c)
    st.success(f"Measured from the {measurement.source}: k = {measurement.k}.")
    if pasted:
        st.caption(calibrate.link_note(measurement))
        # With drafts shorter than k the slider holds the cut drafts' k, which the link note explains.
        if not measurement.k_given and calibrate.link_counts(measurement).get("k") == measurement.k:
            st.caption(texts.CALIBRATE_K_FIXED.format(k=measurement.k))
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
    label, value, about = calibrate.speedup_now_metric(measurement, result, c)
    row.metric(label, value, help=about)
    row.metric("Recommended k", f"{result.recommended_k} → {result.recommended_speedup:.2f}×")
    if measurement.profile_conflict is not None:
        st.warning(f"{measurement.profile_conflict} {texts.CALIBRATE_PROFILE_SET_ASIDE}")
    caveat = calibrate.recommendation_caveat(measurement, result)
    if caveat:
        st.caption(caveat)
    carried = calibrate.carried_acceptance(measurement)
    _carry(carried, "profile" if carried is None or not carried.curve else "curve")

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
                (measurement.k, measurement.draft_length, result.measured_speedup),
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
                    measurement.per_position,
                    np.array(specmath.acceptance(per_position=measurement.per_position).conditional),
                    fit.alpha,
                ),
                f"engine_position_acceptance_k{measurement.k}",
                "calibrate_position_acceptance",
            )
    else:
        st.info("This measurement has no per-position rates; the prediction uses the i.i.d. fit only.")
    curve = measurement.by_draft_length
    if curve is not None:
        every = np.arange(1, int(curve.k[-1]) + 1)
        ui.chart(
            charts.acceptance_length_curve(
                curve.k, curve.mean_length, curve.low, curve.high, specmath.expected_tokens(fit.alpha, every),
                f"i.i.d. at fitted α = {fit.alpha:.3f}",
            ),
            f"acceptance_by_draft_length_k{int(curve.k[-1])}",
        )  # fmt: skip
        st.caption(texts.CALIBRATE_BY_DRAFT_LENGTH)
    if chosen is not None:
        step_times = (target_ms, draft_ms) if target_ms > 0 and draft_ms > 0 else None
        calibrate_schedule.schedule(measurement, result, chosen, step_times)
    _translator(measurement)


def _translator(measurement: calibrate.Measurement) -> None:
    """The engines' acceptance figures in this page's terms, with the paste's own converted."""
    with st.expander(texts.TRANSLATOR_HEADING):
        st.markdown(texts.TRANSLATOR_INTRO)
        st.dataframe(calibrate.translator_table(measurement), hide_index=True)


ui.interactive(ctx, view)
st.markdown(texts.CALIBRATE_EXPLAINER)
