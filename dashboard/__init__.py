"""The dashboard's shared UI package.

- ``params``: every widget parameter (label, default, bounds, URL key) in one table.
- ``pages``: the page registry used by the navigation and the home page's cards.
- ``charts``: pure figure builders, arrays in and ``plotly.graph_objects.Figure`` out.
- ``pq_input``: reading, checking and URL-encoding typed distributions.
- ``presets``: the rejection-sampling page's (p, q) presets.
- ``texts``: explanatory texts and formulas.
- ``ui``: the Streamlit layer (page set-up, widgets bound to the URL, navigation, charts).
- ``compute``: cached calls into ``specmath``.

Only ``ui`` and ``compute`` import Streamlit; everything else is testable without it.
"""
