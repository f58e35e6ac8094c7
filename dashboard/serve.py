"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (``make run`` does).

The same as ``streamlit run app.py`` with the options given, except that the server is kept from
reaching the internet before its first session runs ``app.py``
(:func:`dashboard.workarounds.no_external_ip_lookup`), that streamlit, NumPy and specmath are
imported first and kept out of the garbage collector's full passes (:func:`freeze_imports`), and
that the heaviest computations run in a worker process on the other core (:mod:`dashboard.workers`).
"""

import gc
import importlib
import runpy
import sys
from pathlib import Path

from dashboard import workarounds, workers

APP = Path(__file__).resolve().parents[1] / "app.py"

#: What the server imports before its first run anyway (streamlit), and the numerical core the
#: pages and the worker share. plotly and pandas (0.7 s more) are left to the first visitor: the
#: health check answers that much sooner.
PAGE_IMPORTS = ("streamlit", "streamlit.web.bootstrap", "numpy", "specmath")


def freeze_imports() -> None:
    """Import :data:`PAGE_IMPORTS`, then move every object so far to the collector's permanent generation.

    Every session of a server runs in one process, and Python's full collection walks every
    object it tracks while holding the GIL: each one took 120 to 250 ms and held every
    session's rerun for that long, about twice in 20 seconds of a 30-person workshop (measured
    with ``gc.callbacks``), and 85 to 160 ms with these modules' 81,000 objects frozen (50 to 120
    ms with plotly's and pandas' too). Frozen objects are not walked again; what sessions
    allocate later is collected as before.
    """
    for name in PAGE_IMPORTS:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()


if __name__ == "__main__":
    workarounds.no_external_ip_lookup()
    freeze_imports()
    workers.start()
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    runpy.run_module("streamlit", run_name="__main__", alter_sys=True)
