"""Predictions vs measurements: each measured run beside the speedup specmath.predict_speedup gives it."""

import streamlit as st

from dashboard import charts, texts, ui
from dashboard.address import literal
from dashboard.features import predictions

ui.page()
st.markdown(texts.PREDICTIONS_INTRO)
comparison = predictions.comparison()
summary = predictions.summarize(comparison)
overall = summary["all"]
metrics_area = st.container()  # above the chart, filled after it
priced = comparison.priced
ui.chart(
    charts.predicted_vs_measured(
        [p.prediction.speedup for p in priced],
        [p.run["speedup"] for p in priced],
        [p.run["source"] for p in priced],
        [predictions.marker(p) for p in priced],
        [p.run["id"] for p in priced],
    ),
    "predicted_vs_measured",
)
row = ui.metric_row(metrics_area)
row.metric("Runs priced", f"{overall.runs} of {overall.runs + len(comparison.unpriced)}")
row.metric("Median |error|", f"{overall.median:.1f} %")
row.metric("Worst |error|", f"{overall.worst:.1f} %")

st.subheader("Errors per source")
st.table(predictions.error_table(summary), hide_index=True)  # an HTML table: it wraps on a projector
st.subheader("What the roofline leaves out")
st.markdown(texts.PREDICTIONS_OVERHEADS)
st.table(predictions.overhead_table(), hide_index=True)
st.subheader("Each run")
st.markdown(texts.PREDICTIONS_TABLE)
table = predictions.run_table(comparison)
st.table(table[list(predictions.SHOWN_COLUMNS)], hide_index=True)
ui.csv_download(table, "predictions_vs_measurements.csv")
sweeps = predictions.batch_sweeps(comparison)
if not sweeps.empty:
    st.subheader("Across batch sizes")
    st.markdown(texts.PREDICTIONS_BATCHES)
    st.table(sweeps, hide_index=True)
far = predictions.far_off(comparison)
if far:
    st.subheader(f"Runs priced more than {predictions.FAR_OFF_PCT:.0f} % off, and why")
    for run_id, why in far:
        st.markdown(f"{literal(run_id, limit=80)}: {why}")
if comparison.unpriced:
    st.subheader("Runs the model cannot price")
    for unpriced in comparison.unpriced:
        st.markdown(f"{literal(unpriced.run['id'], limit=80)}: {literal(unpriced.message, limit=400)}")
st.subheader("Sources")
for key, source in comparison.sources.items():
    st.markdown(
        f"{literal(key, limit=80)}: {literal(source['citation'], limit=400)} {literal(source['url'], limit=200)}"
    )
