"""For bench/bench_chart_kinds.py: one slider moving N small line charts, drawn by plotly or by ECharts.

``?kind=plotly`` draws each chart with ``st.plotly_chart``, whose element id hashes the figure, so
every new figure remounts its chart (``streamlit/elements/plotly_chart.py`` lines 913-926 at
1.67.0). ``?kind=echarts`` draws each with ``st.echarts_chart`` under a fixed ``key``: a keyed
display-only ECharts chart keeps its instance and takes the new option in place
(``streamlit/elements/echarts_chart.py`` lines 1577-1598 at 1.67.0). ``?charts=N`` sets how many.
Each chart holds what bench/bare_app.py's does: 50 points of a sine whose frequency the slider sets.
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

kind = st.query_params.get("kind", "plotly")
count = min(max(int(st.query_params.get("charts", "1")), 1), 8)
st.title("Chart kinds")
value = st.sidebar.slider("Value", min_value=1, max_value=100, value=10)
x = np.linspace(0.0, 1.0, 50)
for i in range(count):
    y = np.sin(2 * np.pi * x * (value + i) / 10)
    if kind == "echarts":
        option = {
            "animation": False,
            "xAxis": {"type": "value"},
            "yAxis": {"type": "value"},
            "series": [{"type": "line", "showSymbol": False, "data": np.column_stack([x, y]).tolist()}],
        }
        st.echarts_chart(option, key=f"chart{i}", renderer="svg", height=450)
    else:
        st.plotly_chart(go.Figure(go.Scatter(x=x, y=y, mode="lines")))
