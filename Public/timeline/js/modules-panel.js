// Choose tiles: which of the daemon's modules the Summary shows for the person shown, and in what order
// (GET and PUT /patients/{id}/modules). Every available module is listed with a checkbox (shown or not)
// and Move up / Move down; Save stores the shown ones in the order listed, Back to defaults stores null
// (the daemon's own choice and order). Names and descriptions come from the daemon: text only.

import { h, clear, redrawKeeping } from './dom.js';
import { Dialog } from './dialog.js';
import { t, tn } from './strings.js';

export class ModulesPanel {
  /**
   * dialog: the <dialog> of index.html. api: modules(id), saveModules(id, ids|null). personId(): the
   * person whose summary it is; personName(): their name. onSaved(message) redraws the summary and says
   * what changed (a promise).
   */
  constructor(dialog, { api, personId, personName, onSaved }) {
    this.dialog = dialog;
    this.api = api;
    this.personId = personId;
    this.personName = personName;
    this.onSaved = onSaved;
    this.list = dialog.querySelector('#modules-list');
    this.intro = dialog.querySelector('#modules-intro');
    this.status = dialog.querySelector('#modules-status');
    this.save = dialog.querySelector('#modules-save');
    this.defaults = dialog.querySelector('#modules-defaults');
    this.items = []; // [{id, name, description, shown}] in the order listed
    this.chosen = false; // whether the person chose (false: the daemon's defaults)
    this.patient = null;
    this.seq = 0;
    this.save.addEventListener('click', () => this.store(this.items.filter((item) => item.shown).map((item) => item.id)));
    this.defaults.addEventListener('click', () => this.store(null));
    // ✕ and the backdrop close as close() does: a list still being read is not drawn.
    this.modal = new Dialog(dialog, { fallback: () => document.getElementById('summary-heading'), dismiss: () => this.close() });
  }

  async open(trigger) {
    const opener = trigger || document.activeElement; // before the list is cleared
    this.patient = this.personId();
    this.say('');
    clear(this.list);
    this.intro.textContent = t('app.modules_panel.the_tiles_of_s_summary', 'The tiles of {value}’s summary, in the order they are shown. Tick a tile to show it; move it up or down to change its place.', { value: this.personName() || t('app.modules_panel.this_person', 'this person') });
    this.busy(true);
    this.modal.open(opener);
    const seq = ++this.seq;
    let data;
    try {
      data = await this.api.modules(this.patient);
    } catch (error) {
      if (seq !== this.seq) return;
      if (error.status !== 401 && error.status !== 423) this.say(t('app.modules_panel.could_not_read_the_tiles', 'Could not read the tiles: {message}', { message: error.message }), true);
      return;
    }
    if (seq !== this.seq) return;
    const available = data?.available || [];
    const byId = new Map(available.map((module) => [module.id, module]));
    const shown = data?.modules || [];
    this.chosen = Boolean(data?.chosen);
    this.items = [
      ...shown.map((id) => ({ id, name: byId.get(id)?.name || id, description: byId.get(id)?.description || '', shown: true })),
      ...available.filter((module) => !shown.includes(module.id)).map((module) => ({ ...module, shown: false })),
    ];
    this.render();
    this.busy(false);
  }

  /** The panel, open, drawn again in the table's language (the order and the ticks as they are now). */
  redraw() {
    if (!this.dialog.open) return;
    this.intro.textContent = t('app.modules_panel.the_tiles_of_s_summary', 'The tiles of {value}’s summary, in the order they are shown. Tick a tile to show it; move it up or down to change its place.', { value: this.personName() || t('app.modules_panel.this_person', 'this person') });
    if (this.items) redrawKeeping(this.list, () => this.render());
  }

  close() {
    this.seq += 1;
    this.modal.close();
  }

  busy(on) {
    this.save.disabled = on;
    this.defaults.disabled = on;
    this.list.setAttribute('aria-busy', String(on));
  }

  say(text, isError = false) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }

  /** Draws the list; focus: {id, action} puts the keyboard back on that module's button (or checkbox). */
  render(focus = null) {
    const list = clear(this.list);
    const count = this.items.length;
    this.items.forEach((item, index) => {
      const id = `module-${index}`;
      const hidden = (text) => h('span', { class: 'visually-hidden' }, text);
      const box = h('input', { id: `${id}-shown`, type: 'checkbox', 'data-action': 'show', 'aria-describedby': `${id}-description` });
      box.checked = item.shown;
      box.addEventListener('change', () => { item.shown = box.checked; this.say(''); this.render({ id: item.id, action: 'show' }); });
      const up = h('button', { type: 'button', class: 'button small', 'data-action': 'up', disabled: index === 0, onclick: () => this.move(index, -1) },
        h('span', { 'aria-hidden': 'true' }, '↑ '), t('app.modules_panel.move_up', 'Move up'), hidden(` ${item.name}`));
      const down = h('button', { type: 'button', class: 'button small', 'data-action': 'down', disabled: index === count - 1, onclick: () => this.move(index, 1) },
        h('span', { 'aria-hidden': 'true' }, '↓ '), t('app.modules_panel.move_down', 'Move down'), hidden(` ${item.name}`));
      list.append(h('li', { class: ['module-row', !item.shown && 'off'], 'data-module': item.id },
        h('div', { class: 'check module-check' }, box,
          h('label', { for: `${id}-shown` }, h('span', { class: 'module-name', text: item.name }),
            item.shown ? null : h('span', { class: 'badge neutral' }, 'hidden'))),
        h('p', { id: `${id}-description`, class: 'muted small module-description', text: item.description }),
        h('div', { class: 'module-actions' }, up, down)));
    });
    this.defaults.title = this.chosen ? t('app.modules_panel.show_the_daemons_tiles_in', 'Show the daemon’s tiles in its own order again') : t('app.modules_panel.the_summary_shows_the_default', 'The summary shows the default tiles now');
    if (focus) {
      const row = [...list.children].find((li) => li.dataset.module === focus.id);
      let target = row?.querySelector(`[data-action="${focus.action}"]`);
      // At the top or the bottom the button is disabled: the other one takes the keyboard.
      if (target?.disabled) target = row.querySelector(`[data-action="${focus.action === 'up' ? 'down' : 'up'}"]`);
      target?.focus();
    }
  }

  move(index, delta) {
    const to = index + delta;
    if (to < 0 || to >= this.items.length) return;
    const [item] = this.items.splice(index, 1);
    this.items.splice(to, 0, item);
    const values = { name: item.name, place: to + 1, length: this.items.length };
    this.say(delta < 0 ? t('app.modules_panel.moved_up', '{name} moved up, to place {place} of {length}.', values) : t('app.modules_panel.moved_down', '{name} moved down, to place {place} of {length}.', values));
    this.render({ id: item.id, action: delta < 0 ? 'up' : 'down' });
  }

  async store(modules) {
    const patient = this.patient;
    this.busy(true);
    this.say(t('app.modules_panel.saving', 'Saving…'));
    try {
      await this.api.saveModules(patient, modules);
    } catch (error) {
      this.busy(false);
      if (error.status !== 401 && error.status !== 423) this.say(t('app.modules_panel.not_saved', 'Not saved: {message}', { message: error.message }), true);
      return;
    }
    this.busy(false);
    const message = modules === null
      ? t('app.modules_panel.the_summary_shows_the_default_2', 'The summary shows the default tiles again.')
      : modules.length
        ? t('app.modules_panel.saved_the_summary_shows_in', 'Saved: the summary shows {length} in the order chosen.', { length: tn('app.modules_panel.count.tiles', modules.length, '{n} tile', '{n} tiles') })
        : t('app.modules_panel.saved_the_summary_shows_no', 'Saved: the summary shows no tiles. Choose tiles to show some again.');
    this.close();
    await this.onSaved(message);
  }
}
