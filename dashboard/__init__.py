"""The dashboard's Streamlit layer and the pure pieces it is built from.

- ``registry``: the page registry, the one list of pages (router, navigation, cards, tests).
- ``params``: every widget parameter (label, default, bounds, URL key) in one table.
- ``link_check``: why a link's value cannot be used, for the page's warning.
- ``navigation``: the router's work per run (sidebar, links, the widgets several pages read).
- ``ui``: what page scripts use (their context, widgets bound to the URL, fragments, charts).
- ``workarounds``: fixes for bugs of the pinned Streamlit, each turned off on other versions.
- ``charts``: pure figure builders, arrays in and ``plotly.graph_objects.Figure`` out.
- ``limits``: the caps on one run's work.
- ``serve``: what ``make run`` starts: ``streamlit run app.py`` after the workaround that must
  come before the server starts.
- ``pq_input``, ``pq_editor``: reading, checking and URL-encoding typed distributions; the editor.
- ``features``: page families, one module per page (``features.calibrate``: the Calibrate page's
  input, fit, example pastes, cached call and schedule).
- ``presets``, ``texts``: presets and the pages' texts.
- ``toy_language``, ``step_plan``, ``step_view``: the Step through page's words and target chain,
  how its steps are numbered, and what each step shows from the iteration's trace.

Only ``navigation``, ``ui``, ``workarounds`` and ``features`` use Streamlit; everything else is testable without it.
"""
