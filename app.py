"""Speculative Decoding Explorer: the router.

``st.navigation`` over the page registry (``dashboard/registry.py``); the page scripts are in
``pages/``. Before the page runs, ``navigation.prepare`` draws the sidebar and creates the widgets
of the parameters several pages read, which as the entry script's are common to all pages.
"""

import streamlit as st

from dashboard import navigation

page = st.navigation(navigation.st_pages(), position="hidden")
navigation.prepare(page)
page.run()
