"""The dashboard: the Streamlit shell, one module per page family, and pure chart builders.

The shell:

- ``registry``: the page registry, the one list of pages (router, navigation, cards, tests).
- ``params``: every widget parameter (label, default, bounds, URL key, when shown) in one table.
- ``navigation``: the router's work per run (sidebar, links, the widgets several pages read).
- ``ui``: what page scripts use (their context, which shows their widgets, fragments, charts).
- ``binding``: a parameter's widget bound to the URL, a link's values checked, values for the next run.
- ``address``: what comes from outside (a link's values, a paste, a typed cell): the link
  checks and outside text shown literally.
- ``workarounds``: fixes for bugs of the pinned Streamlit, each turned off on other versions.
- ``js/``: the scripts a page loads (a workaround's, Step through's keys).
- ``limits``: the caps on one run's work.
- ``serve``: what ``make run`` starts: ``streamlit run app.py`` after the workaround that must
  come before the server starts.
- ``pq_input``: reading, checking and URL-encoding typed distributions.
- ``engine_config``: the engines' configs and flags the pages print.
- ``presets``, ``toy_language``, ``texts``: presets, the toy language, the pages' texts.

A page is three files named alike: its script in ``app_pages/``, its module in ``features/``
(its parameters, as the sections its sidebar shows them in, the registry's list of them; cached
calls, view helpers) and its figure builders in ``charts/`` (arrays in, plotly figures
out, no Streamlit). Only the shell's ``navigation``, ``ui``, ``binding`` and ``workarounds`` and the
``features`` modules use Streamlit; everything else is testable without it.
"""
