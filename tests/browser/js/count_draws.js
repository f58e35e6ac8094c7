(() => {
  window.__draws = new Map();  // chart element -> draws with data
  const watch = (gd) => {
    if (gd.__drawsWatched || typeof gd.on !== 'function') return;
    gd.__drawsWatched = true;
    window.__draws.set(gd, 0);
    gd.on('plotly_afterplot', () => {
      if (Array.isArray(gd.data) && gd.data.length > 0) window.__draws.set(gd, window.__draws.get(gd) + 1);
    });
  };
  new MutationObserver(() => document.querySelectorAll('.js-plotly-plot').forEach(watch))
    .observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
})();
