"""The floor for bench/bench_latency.py: a bare Streamlit page, one slider and one small line chart.

Whatever this page costs from a key press to a new chart is Streamlit's and plotly.js's own cost
on this machine (websocket round trip, script rerun, React update, plotly redraw); the dashboard's
pages are measured against it.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.title("Bare page")
value = st.sidebar.slider("Value", min_value=1, max_value=100, value=10)
x = np.linspace(0.0, 1.0, 50)
st.plotly_chart(go.Figure(go.Scatter(x=x, y=np.sin(2 * np.pi * x * value / 10), mode="lines")))
