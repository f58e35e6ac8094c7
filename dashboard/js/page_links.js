// A click on a page link becomes one plain step in the browser's history: push the link's
// address, then let Streamlit draw the page from that address as it does on Back and Forward
// (a popstate event). Streamlit 1.67's own handling of the click pushes two entries and repeats
// the bound parameters of the page being left in the address (see dashboard/workarounds.py).
// A click with a modifier key is left to the browser, which opens the link in a new tab.
(() => {
  if (window.__sdePageLinks) return;
  window.__sdePageLinks = true;
  const linkSelector = 'a[data-testid="stPageLink-NavLink"]';
  // The href is relative to the app's root ("" for the home page, "Optimal_k?alpha=0.5").
  const resolve = (link) => new URL('./' + link.getAttribute('href'), window.location.href);

  window.addEventListener('click', (event) => {
    const link = event.target instanceof Element && event.target.closest(linkSelector);
    if (!link || event.defaultPrevented || event.button !== 0) return;
    event.stopPropagation();
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    const url = resolve(link);
    // An embedded app stays embedded, as with Streamlit's own page switch.
    const here = new URLSearchParams(window.location.search);
    for (const key of ['embed', 'embed_options']) {
      if (!url.searchParams.has(key)) here.getAll(key).forEach((value) => url.searchParams.append(key, value));
    }
    if (url.href === window.location.href) return;
    window.history.pushState({}, '', url.href);
    window.dispatchEvent(new PopStateEvent('popstate', { state: {} }));
  }, true);
})();
