// Installed before the page loads, so that this listener is the window's first: a page's own
// capturing key handler (Step through's, which turns arrow keys into its Next and Back buttons)
// may stop the event from reaching any later one. watch.js clears __keyAt before each press.
window.addEventListener('keydown', (event) => {
  if (window.__keyAt === null) window.__keyAt = event.timeStamp;
}, { capture: true });
