// A clicker's keys drive the Step through page wherever the focus is: PageDown, ArrowRight and
// ArrowDown press Next; PageUp, ArrowLeft and ArrowUp press Back. The key goes to no other
// handler, so a focused slider (Step, k) or box never changes with it: the step changes only
// through the buttons, whose callbacks write it to the address. In a text or number box
// ArrowLeft and ArrowRight still move the caret. Loaded by app_pages/step_through.py.
(() => {
  if (window.__sdeStepKeys) return;
  window.__sdeStepKeys = true;
  const BUTTONS = {
    PageDown: 'next', ArrowRight: 'next', ArrowDown: 'next',
    PageUp: 'back', ArrowLeft: 'back', ArrowUp: 'back',
  };
  const NOT_TEXT = ['range', 'checkbox', 'radio', 'button', 'submit'];
  const typing = (element) => element instanceof HTMLElement && (
    element.isContentEditable || element.tagName === 'TEXTAREA'
    || (element.tagName === 'INPUT' && !NOT_TEXT.includes(element.type)));

  // Capture on window: this listener runs before any other (Streamlit's shortcuts, the slider's).
  window.addEventListener('keydown', (event) => {
    const name = BUTTONS[event.key];
    if (!name || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    // The listener outlives the page in the browser tab: elsewhere there are no step buttons.
    const button = document.querySelector(`.st-key-step_${name} button`);
    if (!button) return;
    if ((event.key === 'ArrowLeft' || event.key === 'ArrowRight') && typing(document.activeElement)) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (!event.repeat && !button.disabled) button.click();
  }, true);
})();
