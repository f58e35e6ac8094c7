"""Developer scripts: screenshots and the live-app harness shared with the browser tests and bench/."""
