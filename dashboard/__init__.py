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
- ``features``: page families, one module a page (its cached calls, view helpers and conditions).
- ``presets``, ``texts``: presets and the pages' texts.
- ``toy_language``: the toy language's words and target chain (Step through and the Simulator).

Only ``navigation``, ``ui``, ``workarounds`` and ``features`` use Streamlit; everything else is testable without it.
"""
