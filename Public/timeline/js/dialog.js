// The app's modal panels (the <dialog class="details"> elements of index.html) open, close and give the
// focus back in one way. showModal() draws the backdrop, keeps the keyboard inside and closes on Escape;
// ✕ ([data-close]) and a click on the backdrop close too. Once closed, the focus goes back to the element
// that opened the panel, or, when that element is gone or hidden (it was about what the panel removed),
// to the panel's fallback.

export class Dialog {
  /**
   * el: the <dialog>. fallback(trigger): where the focus goes when the opener is gone or hidden (null:
   * where the browser leaves it). dismiss(): what ✕ and the backdrop do, when the panel's own close does
   * more than close (default: close).
   */
  constructor(el, { fallback = () => null, dismiss = () => this.close() } = {}) {
    this.el = el;
    this.trigger = null;
    this.returnFocus = true;
    el.addEventListener('click', (event) => {
      // A click on the dialog itself, not on anything in it, is a click on the backdrop.
      if (event.target === el || event.target.closest('[data-close]')) dismiss();
    });
    // The close event comes a moment after close(), and also after Escape, which closes without close().
    el.addEventListener('close', () => {
      if (el.open) return; // opened again before this came: that opening owns the trigger and the focus
      const trigger = this.trigger;
      const returnFocus = this.returnFocus;
      this.trigger = null;
      this.returnFocus = true;
      if (!returnFocus) return;
      (isShown(trigger) ? trigger : fallback(trigger))?.focus();
    });
  }

  /**
   * Opens the panel (or keeps it open). trigger: where the focus goes back to (default: what has it now).
   * focus: what takes the keyboard now, an element or a function giving one, called once the panel is shown
   * (default: ✕). toTop: scrolled back to its top (a panel opened again keeps its scroll otherwise).
   */
  open(trigger, { focus = null, toTop = false } = {}) {
    this.trigger = trigger || document.activeElement;
    this.returnFocus = true;
    if (!this.el.open) this.el.showModal();
    if (toTop) {
      const body = this.el.querySelector('.details-body');
      if (body) body.scrollTop = 0;
      this.el.scrollTop = 0;
    }
    const target = typeof focus === 'function' ? focus() : focus;
    (target || this.el.querySelector('[data-close]'))?.focus();
  }

  /** returnFocus false: the focus stays where the caller puts it next (a result followed, a person shown). */
  close({ returnFocus = true } = {}) {
    if (!this.el.open) return;
    this.returnFocus = returnFocus;
    this.el.close();
  }
}

/** Still in the page and drawn (not in a hidden part of it): the focus can go there. */
function isShown(el) {
  return Boolean(el && el.isConnected && el.getClientRects().length > 0);
}
