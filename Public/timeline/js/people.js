// People: the family as the picker lists them, to name (a display name, a relationship), order
// (Move up / Move down: every record gets its `order`, so the order sticks), link (records of one
// person from several sources, from the daemon's suggestions: same name and birth day) and remove
// (everything of theirs, after a confirmation). Notes on entries that a source has since removed
// (orphaned annotations) are listed under their person, to keep or delete.

import { h, clear, redrawKeeping } from './dom.js';
import { Dialog } from './dialog.js';
import { formatDate, formatDateTime } from './format.js';
import { RELATIONSHIPS, relationshipWord, sourceWord } from './patients.js';
import { MEDICATION_FIELDS } from './annotations.js';
import { later, t, tn } from './strings.js';

const RELATIONSHIP_CHOICES = [['', later('app.people.not_set', 'Not set')], ...RELATIONSHIPS.map(([value, word]) => [value, value === 'me' ? later('app.people.me_this_is_you', 'Me (this is you)') : word])];

/** What one note on a removed entry says, as text. */
function orphanText(annotation) {
  const parts = [];
  if (annotation.note) parts.push(`“${annotation.note}”`);
  if (annotation.struck) parts.push(t('app.people.marked_not_mine_wrong', 'Marked not mine / wrong{value}', { value: annotation.reason ? `: ${annotation.reason}` : '' }));
  const med = annotation.medication || {};
  const details = MEDICATION_FIELDS.filter(([key]) => med[key]).map(([key, label]) => `${label.toLowerCase()} ${med[key]}`);
  if (details.length) parts.push(t('app.people.medication', 'Medication: {value}', { value: details.join(', ') }));
  return parts.join(' · ') || t('app.people.an_empty_note', 'An empty note');
}

export class PeoplePanel {
  /**
   * dialog: the <dialog> of index.html. api: the daemon's API. people(): groupPeople's list as the
   * app has it now. current(): the id of the person shown. onChanged() reloads the family and the
   * timeline (a promise). onOrphans(count) tells the app how many notes on removed entries the person
   * shown has.
   */
  constructor(dialog, { api, people, current, onChanged }) {
    this.dialog = dialog;
    this.api = api;
    this.people = people;
    this.current = current;
    this.onChanged = onChanged;
    this.list = dialog.querySelector('#people-list');
    this.status = dialog.querySelector('#people-status');
    this.cardNote = null; // {person, text, error} shown in a card after it is drawn again
    this.extrasSeq = 0;
    this.busy = false;
    // The button that opened the panel may be gone with what it was about (a removed person's notice).
    this.modal = new Dialog(dialog, { fallback: () => document.getElementById('people-button') });
  }

  open(trigger, focusPerson = null) {
    const opener = trigger || document.activeElement; // before the list is drawn again
    this.say('');
    this.cardNote = null;
    this.render();
    this.modal.open(opener, {
      focus: () => {
        // Scrolled to once shown (a closed dialog has no layout to scroll).
        const card = focusPerson && this.cardOf(focusPerson);
        card?.scrollIntoView({ block: 'start' });
        return card?.querySelector('h3');
      },
    });
    this.loadExtras();
  }

  close() {
    this.modal.close();
  }

  /** The panel, open, drawn again in the table's language (what is typed in a card is kept). */
  redraw() {
    if (!this.dialog.open) return;
    redrawKeeping(this.list, () => this.render());
    this.loadExtras();
  }

  say(text, isError = false) {
    this.status.textContent = text;
    this.status.classList.toggle('error', isError);
  }

  cardOf(id) {
    return [...this.list.children].find((card) => card.dataset.person === id) || null;
  }

  render() {
    const people = this.people();
    const list = clear(this.list);
    if (!people.length) {
      list.append(h('li', { class: 'muted' }, t('app.people.no_ones_records_are_here', 'No one’s records are here yet.')));
      return;
    }
    people.forEach((person, index) => list.append(this.card(person, index, people.length)));
  }

  card(person, index, count) {
    const { patient, members } = person;
    const id = `person-${index}`;
    const name = patient.name || t('app.people.unnamed', 'Unnamed');
    const hidden = (text) => h('span', { class: 'visually-hidden' }, text);
    const card = h('li', { class: 'person-card', 'data-person': person.id, 'aria-labelledby': `${id}-name` });

    const head = h('div', { class: 'person-card-head' },
      h('h3', { id: `${id}-name`, tabindex: '-1' }, name),
      patient.relationship ? h('span', { class: 'badge neutral' }, relationshipWord(patient.relationship)) : null,
      person.id === this.current() ? h('span', { class: 'badge busy' }, t('app.people.shown_now', 'Shown now')) : null);
    const facts = [
      patient.birthdate != null ? t('app.people.born', 'born {birthdate}', { birthdate: formatDate(patient.birthdate) }) : null,
      tn('app.people.count.record_entries', patient.entries || 0, '{n} record entry', '{n} record entries'),
      members.length > 1 ? tn('app.people.count.linked_records', members.length, '{n} linked record', '{n} linked records') : t('app.people.from', 'from {value}', { value: sourceWord(patient.source) || t('app.people.an_unknown_source', 'an unknown source') }),
    ].filter(Boolean).join(' · ');
    card.append(head, h('p', { class: 'muted small' },
      t('app.people.in_the_record', 'In the record: “{source_name}”', { source_name: patient.source_name || name }), ' · ', facts));

    // The name shown and the relationship.
    const nameInput = h('input', {
      id: `${id}-display`, name: 'display_name', type: 'text', maxlength: '200', autocomplete: 'off',
      placeholder: patient.source_name || '', 'aria-describedby': `${id}-display-hint`,
    });
    nameInput.value = patient.display_name || '';
    const relation = h('select', { id: `${id}-relationship`, name: 'relationship' },
      RELATIONSHIP_CHOICES.map(([value, word]) => h('option', { value }, word)));
    relation.value = patient.relationship && RELATIONSHIPS.some(([v]) => v === patient.relationship) ? patient.relationship : '';
    const note = h('p', { class: 'form-note', role: 'status' });
    const form = h('form', { class: 'person-form', novalidate: true },
      h('div', { class: 'field-row' },
        h('div', { class: 'field' }, h('label', { for: `${id}-display` }, t('app.people.display_name', 'Display name')), nameInput,
          h('span', { id: `${id}-display-hint`, class: 'hint muted small' }, t('app.people.empty_the_name_in_the', 'Empty: the name in the record.'))),
        h('div', { class: 'field' }, h('label', { for: `${id}-relationship` }, t('app.people.relationship', 'Relationship')), relation)),
      h('div', { class: 'form-foot' },
        h('button', { type: 'submit', class: 'button primary small', 'data-action': 'save' }, t('app.people.save', 'Save'), hidden(` ${name}`)),
        note));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const display = nameInput.value.trim();
      this.run(person, 'save', () => this.api.updatePatient(person.id, { display_name: display || null, relationship: relation.value || null }),
        () => t('app.people.saved', 'Saved. {value}{value2}.', { value: display ? t('app.people.shown_as', 'Shown as “{name}”', { name: display }) : t('app.people.shown_as_the_name_in_the_record', 'Shown as “{name}”, the name in the record', { name: patient.source_name || name }), value2: relation.value ? `, ${relationshipWord(relation.value).toLowerCase()}` : '' }));
    });
    card.append(form);
    if (this.cardNote?.person === person.id) {
      note.textContent = this.cardNote.text;
      note.classList.toggle('error', Boolean(this.cardNote.error));
    }

    // Records linked into this person.
    if (members.length > 1) {
      const rows = members.map((member) => h('li', null,
        h('span', null, member.source_name || member.name || t('app.people.unnamed', 'Unnamed'), h('span', { class: 'muted small' },
          t('app.people.from_2', ' · from {value} · {entries}', { value: sourceWord(member.source) || t('app.people.an_unknown_source', 'an unknown source'), entries: tn('app.people.count.entries', member.entries || 0, '{n} entry', '{n} entries') }))),
        member.id === person.id
          ? h('span', { class: 'muted small' }, t('app.people.main_record', 'main record'))
          : h('button', {
            type: 'button', class: 'button small', 'data-action': 'unlink', 'data-patient': member.id,
            onclick: () => this.run(person, 'unlink', () => this.api.unlink(person.id, member.id),
              () => t('app.people.unlinked_is_a_person_of', 'Unlinked: {source_name} is a person of their own again.', { source_name: member.source_name || member.name }), true),
          }, t('app.people.unlink', 'Unlink'), hidden(` ${member.source_name || member.name} (${tn('app.people.count.entries', member.entries || 0, '{n} entry', '{n} entries')})`))));
      card.append(h('div', { class: 'person-links' }, h('h4', null, t('app.people.linked_records_2', 'Linked records')),
        h('p', { class: 'muted small' }, t('app.people.shown_as_one_person_each', 'Shown as one person: each fact once, with the sources that hold it.')),
        h('ul', { class: 'plain-list' }, rows)));
    }
    // Filled by loadExtras: suggestions to link, and notes on removed entries.
    card.append(h('div', { class: 'person-suggestions', hidden: true }), h('div', { class: 'person-orphans', hidden: true }));

    // Order and removal.
    const up = h('button', { type: 'button', class: 'button small', 'data-action': 'up', disabled: index === 0, onclick: () => this.move(index, -1) },
      h('span', { 'aria-hidden': 'true' }, '↑ '), t('app.people.move_up', 'Move up'), hidden(` ${name}`));
    const down = h('button', { type: 'button', class: 'button small', 'data-action': 'down', disabled: index === count - 1, onclick: () => this.move(index, 1) },
      h('span', { 'aria-hidden': 'true' }, '↓ '), t('app.people.move_down', 'Move down'), hidden(` ${name}`));
    const confirm = this.confirmBox(person, id);
    const remove = h('button', {
      type: 'button', class: 'button small danger', 'data-action': 'remove', 'aria-expanded': 'false', 'aria-controls': `${id}-confirm`,
      onclick: () => {
        confirm.hidden = false;
        remove.setAttribute('aria-expanded', 'true');
        confirm.querySelector('[data-action="cancel"]').focus();
      },
    }, t('app.people.remove', 'Remove…'), hidden(` ${name}`));
    card.append(h('div', { class: 'person-actions' }, up, down, remove), confirm);
    confirm.addEventListener('cancel-remove', () => {
      confirm.hidden = true;
      remove.setAttribute('aria-expanded', 'false');
      remove.focus();
    });
    return card;
  }

  confirmBox(person, id) {
    const { patient, members } = person;
    const name = patient.name || t('app.people.this_person', 'this person');
    const alias = patient.source_name && patient.source_name !== name ? t('app.people.in_the_record_2', ' (“{source_name}” in the record)', { source_name: patient.source_name }) : '';
    const entries = tn('app.people.count.record_entries', patient.entries || 0, '{n} record entry', '{n} record entries');
    const what = members.length > 1 ? t('app.people.entries_in_linked_records', '{entries} in {linked}', { entries, linked: tn('app.people.count.linked_records', members.length, '{n} linked record', '{n} linked records') }) : entries;
    const box = h('div', { id: `${id}-confirm`, class: 'confirm', role: 'group', 'aria-labelledby': `${id}-confirm-text`, hidden: true },
      h('p', { id: `${id}-confirm-text` },
        h('strong', null, t('app.people.remove_2', 'Remove {name}{alias}?', { name, alias })),
        t('app.people.this_removes_everything_of_theirs', ' This removes everything of theirs from this computer: {what}, your notes on them, and the levels, medications and notes you recorded for them. ', { what }),
        t('app.people.a_sync_wont_bring_them', 'A sync won’t bring them back. This cannot be undone.')),
      h('div', { class: 'actions' },
        h('button', {
          type: 'button', class: 'button danger-solid', 'data-action': 'confirm-remove',
          onclick: () => this.run(person, 'removed', async () => {
            for (const member of members) await this.api.removePatient(member.id);
          }, () => t('app.people.removed_and_everything_of_theirs', 'Removed {name} and everything of theirs.', { name }), true),
        }, t('app.people.remove_3', 'Remove {name}', { name })),
        h('button', { type: 'button', class: 'button', 'data-action': 'cancel', onclick: () => box.dispatchEvent(new Event('cancel-remove')) }, t('app.people.cancel', 'Cancel'))));
    return box;
  }

  /**
   * Runs one change, then reloads the family and draws the list again. message() says what was
   * done: in the person's card, or (panel) at the top of the panel when the card changes shape.
   */
  async run(person, action, work, message, panel = false) {
    if (this.busy) return;
    this.busy = true;
    this.say('');
    this.cardNote = null;
    for (const button of this.list.querySelectorAll('button')) button.disabled = true;
    let failure = null;
    try {
      await work();
    } catch (error) {
      failure = error;
    }
    try {
      await this.onChanged();
    } catch { /* the app says what went wrong */ }
    this.busy = false;
    if (!this.dialog.open) return;
    const text = failure ? t('app.people.not_done', 'Not done: {message}', { message: failure.message }) : message();
    if (panel || failure) this.say(text, Boolean(failure));
    else this.cardNote = { person: person.id, text };
    this.render();
    this.loadExtras();
    this.refocus(person.id, action, failure);
  }

  refocus(personId, action, failure) {
    const card = this.cardOf(personId);
    let target = null;
    if (card && (action === 'up' || action === 'down')) {
      target = card.querySelector(`[data-action="${action}"]`);
      if (target?.disabled) target = card.querySelector(`[data-action="${action === 'up' ? 'down' : 'up'}"]`);
    } else if (card && action === 'save') {
      target = card.querySelector('[data-action="save"]');
    } else if (card) {
      target = card.querySelector('h3');
    }
    if (!target || target.disabled) target = failure ? this.status : this.dialog.querySelector('#people-title');
    target.focus();
  }

  async move(index, delta) {
    const people = this.people().slice();
    const [moved] = people.splice(index, 1);
    people.splice(index + delta, 0, moved);
    await this.run(moved, delta < 0 ? 'up' : 'down', async () => {
      // Everyone gets an order (their place now), so that the new order sticks for all of them.
      for (const [order, person] of people.entries()) {
        for (const member of person.members) {
          if (member.order !== order) await this.api.updatePatient(member.id, { order });
        }
      }
    }, () => {
      const values = { name: moved.patient.name || t('app.people.this_person', 'this person'), place: index + delta + 1, length: people.length };
      return delta < 0 ? t('app.people.moved_up', 'Moved {name} up: number {place} of {length}.', values) : t('app.people.moved_down', 'Moved {name} down: number {place} of {length}.', values);
    });
  }

  /** Link suggestions (links.json) and notes on removed entries (annotations.json), for everyone. */
  async loadExtras() {
    const seq = ++this.extrasSeq;
    const people = this.people();
    const current = this.current();
    const results = await Promise.all(people.map(async (person) => {
      const [links, notes] = await Promise.all([
        this.api.links(person.id).catch(() => null),
        Promise.all(person.members.map((member) => this.api.annotations(member.id)
          .then((data) => (data?.annotations || []).filter((a) => a.orphaned).map((a) => ({ ...a, patient: member.id })))
          .catch(() => []))),
      ]);
      return { person, suggestions: links?.suggestions || [], orphans: notes.flat() };
    }));
    if (seq !== this.extrasSeq || !this.dialog.open) return;
    // A pair is suggested once, in the card of the person shown now if it is one of them.
    results.sort((a, b) => (b.person.id === current) - (a.person.id === current));
    const offered = new Set();
    const personOf = (id) => people.find((p) => p.members.some((m) => m.id === id));
    for (const { person, suggestions, orphans } of results) {
      const card = this.cardOf(person.id);
      if (!card) continue;
      const fresh = suggestions.filter((s) => {
        const other = personOf(s.id)?.id || s.id;
        const pair = [person.id, other].sort().join(' ');
        if (other === person.id || offered.has(pair)) return false;
        offered.add(pair);
        return true;
      });
      this.renderSuggestions(card.querySelector('.person-suggestions'), person, fresh);
      this.renderOrphans(card.querySelector('.person-orphans'), person, orphans);
    }
  }

  renderSuggestions(box, person, suggestions) {
    clear(box).hidden = suggestions.length === 0;
    if (!suggestions.length) return;
    const name = person.patient.name || t('app.people.this_person', 'this person');
    box.append(h('h4', null, t('app.people.the_same_person', 'The same person?')));
    const list = h('ul', { class: 'plain-list' });
    for (const suggestion of suggestions) {
      const other = suggestion.name || t('app.people.unnamed', 'Unnamed');
      const facts = [
        suggestion.birthdate != null ? t('app.people.born', 'born {birthdate}', { birthdate: formatDate(suggestion.birthdate) }) : null,
        suggestion.entries != null ? tn('app.people.count.entries', suggestion.entries, '{n} entry', '{n} entries') : null,
        suggestion.source ? t('app.people.from_3', 'from {source}', { source: sourceWord(suggestion.source) }) : null,
      ].filter(Boolean).join(', ');
      list.append(h('li', { class: 'suggestion', 'data-patient': suggestion.id },
        h('p', null, h('strong', null, other), facts ? ` (${facts})` : '', t('app.people.may_be', ' may be {name}: {reason}.', { name, reason: suggestion.reason || t('app.people.they_look_alike', 'they look alike') })),
        h('button', {
          type: 'button', class: 'button small', 'data-action': 'link',
          onclick: () => this.run(person, 'link', () => this.api.link(person.id, suggestion.id),
            () => t('app.people.linked_s_record_is_now', 'Linked: {other}’s record is now part of {name}.', { other, name }), true),
        }, t('app.people.these_are_the_same_person', 'These are the same person — link'))));
    }
    box.append(list);
  }

  renderOrphans(box, person, orphans) {
    clear(box).hidden = orphans.length === 0;
    if (!orphans.length) return;
    box.append(h('h4', null, t('app.people.notes_on_removed_entries', 'Notes on removed entries')),
      h('p', { class: 'muted small' }, t('app.people.the_source_no_longer_has', 'The source no longer has the entries these notes were on. They are kept until you delete them.')));
    const list = h('ul', { class: 'plain-list orphans' });
    for (const annotation of orphans) {
      const del = h('button', { type: 'button', class: 'button small danger', 'data-action': 'delete-orphan' }, t('app.people.delete_note', 'Delete note'));
      del.addEventListener('click', async () => {
        del.disabled = true;
        try {
          await this.api.deleteAnnotation(annotation.patient, annotation.entry_id);
          this.say(t('app.people.the_note_is_deleted', 'The note is deleted.'));
          this.cardOf(person.id)?.querySelector('h3')?.focus();
          await this.loadExtras();
          this.onChanged().catch(() => {});
        } catch (error) {
          del.disabled = false;
          this.say(t('app.people.not_deleted', 'Not deleted: {message}', { message: error.message }), true);
        }
      });
      list.append(h('li', { class: 'orphan', 'data-entry': annotation.entry_id },
        h('p', null, orphanText(annotation)),
        h('p', { class: 'muted small' }, t('app.people.written', 'Written {updated_at}', { updated_at: formatDateTime(annotation.updated_at ?? annotation.created_at) })),
        del));
    }
    box.append(list);
  }
}
