"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (``make run`` does).

``streamlit run app.py`` with the options given, after one workaround that must be in place
before the server starts: :func:`dashboard.workarounds.no_external_ip_lookup`. A server on all
interfaces (``make run HOST=0.0.0.0``) looks up its external address for the start-up banner, and
every server does for the first connection from an origin it does not know (a browser on another
machine, or behind ``make workshop``'s proxy), before ``app.py`` has run once; offline, each lookup
holds the server for about 20 s.
"""

import runpy
import sys
from pathlib import Path

from dashboard import workarounds

APP = Path(__file__).resolve().parents[1] / "app.py"

if __name__ == "__main__":
    workarounds.no_external_ip_lookup()
    sys.argv = ["streamlit", "run", str(APP), *sys.argv[1:]]
    runpy.run_module("streamlit", run_name="__main__", alter_sys=True)
