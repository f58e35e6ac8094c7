"""Start the dashboard: ``python -m dashboard.serve [streamlit options]`` (``make run`` does).

The same as ``streamlit run app.py`` with the options given, except that the server is kept from
reaching the internet before its first session runs ``app.py``
(:func:`dashboard.workarounds.no_external_ip_lookup`).
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
