// Small DOM helpers. Text always goes in as text (never as HTML), and styles only through the
// CSSOM (element.style), which the Content-Security-Policy allows; a style attribute would not be.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    else if (key === 'text') el.textContent = value;
    else if (key === 'style') Object.assign(el.style, value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h('p', {class: 'muted'}, 'text', otherNode). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element; presentation attributes (x, y, fill…) are attributes, not styles. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null) continue;
    if (key === 'text') el.textContent = value;
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

/** Runs fn once, `ms` after the last of a burst of calls (a resize, say). */
export function debounce(fn, ms) {
  let timer = 0;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/**
 * Draws what is in root again with draw() (in a new language, say), keeping what the person typed or chose
 * in its fields and where the focus was: fields and the focused element are found again by their id.
 */
export function redrawKeeping(root, draw) {
  const fields = new Map();
  for (const el of root.querySelectorAll('input[id], select[id], textarea[id]')) {
    if (el.type === 'file') continue;
    fields.set(el.id, el.type === 'checkbox' || el.type === 'radio' ? el.checked : el.value);
  }
  const active = document.activeElement;
  const focused = active && active !== root && root.contains(active) ? active.id : '';
  draw();
  const byId = (id) => root.querySelector(`#${CSS.escape(id)}`);
  for (const [id, value] of fields) {
    const el = byId(id);
    if (!el) continue;
    if (typeof value === 'boolean') el.checked = value;
    else el.value = value;
  }
  if (focused) byId(focused)?.focus({ preventScroll: true });
}
