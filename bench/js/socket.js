(() => {
  const Socket = window.WebSocket;
  window.__socketTimes = [];
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', () => window.__socketTimes.push(performance.now()));
    }
  };
})();
