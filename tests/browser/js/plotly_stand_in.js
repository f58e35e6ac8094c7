  window.__calls = [];
  window.Plotly = {
    react(gd, ...args) {
      const figure = args.length === 1 ? args[0] : { data: args[0], layout: args[1] };
      window.__calls.push({ id: gd.id, name: figure.data[0].name, width: figure.layout.width ?? null });
      // As plotly.js does: each typed array decoded is kept on its spec object.
      const decode = (value) => {
        if (!value || typeof value !== 'object') return;
        if ('bdata' in value) value._inputArray = [1];
        Object.values(value).forEach(decode);
      };
      decode(figure);
      gd.data = figure.data;
      gd.layout = figure.layout;
      gd._fullLayout = {};
      return figure.data[0].name === 'broken' ? Promise.reject(new Error('no plot')) : Promise.resolve(gd);
    },
  };
  // As Streamlit does: a figure, then a copy of it at the measured width.
  window.figure = (name, width) => ({ data: [{ y: [1, 2], name }], layout: { height: 300, width } });
