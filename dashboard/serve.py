"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (``make run`` does).

The same as ``streamlit run app.py`` with the options given, except that the server is kept from
reaching the internet before its first session runs ``app.py``
(:func:`dashboard.workarounds.no_external_ip_lookup`), and that the pages' libraries are imported
first and kept out of the garbage collector's full passes (:func:`freeze_imports`).
"""

import gc
import importlib
import runpy
import sys
from pathlib import Path

from dashboard import workarounds

APP = Path(__file__).resolve().parents[1] / "app.py"

#: The libraries the pages use, and this project's modules that make no Streamlit call on import
#: (``st.cache_data`` outside a running server would pick a storage of its own).
PAGE_IMPORTS = (
    "streamlit",
    "numpy",
    "pandas",
    "plotly.graph_objects",
    "specmath",
    "dashboard.charts",
    "dashboard.calibrate_input",
    "dashboard.engine_examples",
    "dashboard.exercises",
    "dashboard.step_view",
    "dashboard.tree_view",
)


def freeze_imports() -> None:
    """Import what the pages use, then move every object so far to the collector's permanent generation.

    Every session of a server runs in one process, and Python's full collection walks every
    object it tracks while holding the GIL: each one took 120 to 250 ms and held every
    session's rerun for that long, about twice in 20 seconds of a 30-person workshop (measured
    with ``gc.callbacks``), and 50 to 120 ms with the libraries' 119,000 objects frozen. Frozen
    objects are not walked again; what sessions allocate later is collected as before.
    """
    for name in PAGE_IMPORTS:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


if __name__ == "__main__":
    workarounds.no_external_ip_lookup()
    freeze_imports()
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    runpy.run_module("streamlit", run_name="__main__", alter_sys=True)
