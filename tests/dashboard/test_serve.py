"""dashboard.serve, what ``make run`` starts: the libraries the pages use are frozen out of full collections."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, sys
from dashboard import serve
before = gc.get_freeze_count()
serve.freeze_imports()
print(before, gc.get_freeze_count(), all(name in sys.modules for name in serve.PAGE_IMPORTS),
      any(name in sys.modules for name in ("dashboard.cached", "dashboard.ui", "dashboard.navigation")))
"""


def test_freeze_imports_moves_the_page_libraries_out_of_full_collections():
    # In a fresh interpreter: freezing is for the server's process, not the test runner's.
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
    before, after, imported, streamlit_calls = out.stdout.split()
    assert before == "0" and imported == "True"
    # No module whose import makes a Streamlit call (st.cache_data) runs before the server does.
    assert streamlit_calls == "False" and not out.stderr
    # streamlit, NumPy and specmath are some 80,000 objects; a full pass no longer walks them.
    assert int(after) > 50_000
