"""Speculative Decoding Explorer: the router.

``st.navigation`` over the page registry (``dashboard/registry.py``); the page scripts are in
``app_pages/``. Before the page runs, ``navigation.prepare`` draws the sidebar and creates the
widgets of the parameters several pages read, which as the entry script's are common to all pages.

The folder is not called ``pages``: with a ``pages/`` folder beside the entry script, Streamlit
1.67 runs a server's first script run through its legacy multipage scheme even though this script
calls ``st.navigation``, so the first visitor of a deep link got "page not found" and a page whose
widgets did nothing.
"""

import streamlit as st

from dashboard import navigation, workarounds

# For `streamlit run app.py`; `make run` (dashboard/serve.py) does it before the server starts.
workarounds.no_external_ip_lookup()
pages = navigation.st_pages()
page = st.navigation(list(pages.values()), position="hidden")
navigation.prepare(page, pages)
page.run()
