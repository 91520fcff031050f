// What an import did with every statement of a file, in words: the report's per-patient "accounted"
// (C-CDA statements or FHIR resources: imported, merged as duplicates, left out and why), and what a
// file's count counts (a C-CDA document's entries, FHIR resources, an RHEx file's records). Texts from
// the string table, read when shown.

import { t, tn } from './strings.js';

/** A reason of the report (ImportAccounting.LeftOut) as a person reads it; an unknown one as written. */
export function reasonWords(reason) {
  switch (reason) {
    case 'negated': return t('app.uploads.left_out_negated', 'said not to be so');
    case 'entered_in_error': return t('app.uploads.left_out_entered_in_error', 'entered in error');
    case 'names_nothing': return t('app.uploads.left_out_names_nothing', 'with no code, name or value');
    case 'no_statement': return t('app.uploads.left_out_no_statement', 'empty entries');
    case 'unmapped_section': return t('app.uploads.left_out_unmapped_section', 'in sections not shown as entries (kept as text)');
    case 'over_limit': return t('app.uploads.left_out_over_limit', 'over a reader’s limit');
    case 'no_entry': return t('app.uploads.left_out_no_entry', 'with nothing to show');
    case 'kept_not_shown': return t('app.uploads.left_out_kept_not_shown', 'kept, not shown');
    default: return String(reason).replace(/_/g, ' ');
  }
}

function count(n, unit) {
  switch (unit) {
    case 'entries': return tn('app.uploads.count.entries', n, '{n} entry', '{n} entries');
    case 'records': return tn('app.uploads.count.records', n, '{n} record', '{n} records');
    default: return tn('app.uploads.count.resources', n, '{n} resource', '{n} resources');
  }
}

/** What a file's count counts, by format. */
export function fileCount(file) {
  if (file?.resources == null) return null;
  return count(file.resources, file.format === 'ccda' ? 'entries' : file.format === 'rhex' ? 'records' : 'resources');
}

/**
 * {"unit": "entries", "elements": 42, "imported": 38, "merged": 2, "left_out": {"negated": 2}} →
 * "All 42 entries accounted for: 38 imported, 2 duplicates merged, 2 left out (2 said not to be so)."
 * Null when there is nothing to say.
 */
export function accountedSentence(accounted) {
  if (!accounted || !accounted.elements) return null;
  const leftOut = Object.entries(accounted.left_out || {}).filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  const leftTotal = leftOut.reduce((n, [, c]) => n + c, 0);
  const parts = [t('app.uploads.accounted_imported', '{count} imported', { count: accounted.imported.toLocaleString() })];
  if (accounted.merged) {
    parts.push(tn('app.uploads.count.duplicates_merged', accounted.merged, '{n} duplicate merged', '{n} duplicates merged'));
  }
  if (leftTotal) {
    const why = leftOut.map(([reason, n]) => `${n.toLocaleString()} ${reasonWords(reason)}`).join(', ');
    parts.push(t('app.uploads.accounted_left_out', '{count} left out ({why})', { count: leftTotal.toLocaleString(), why }));
  }
  const adds = accounted.imported + (accounted.merged || 0) + leftTotal === accounted.elements;
  const what = count(accounted.elements, accounted.unit === 'entries' ? 'entries' : 'resources');
  const head = !adds ? what
    : accounted.elements === 1 ? t('app.uploads.accounted_one', '{what} accounted for', { what })
      : t('app.uploads.accounted_all', 'All {what} accounted for', { what });
  return `${head}: ${parts.join(', ')}.`;
}
