// Share with a doctor (Public/timeline/js/share.js): the download's URL for the sections chosen and a day.

import './support.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHARE_SECTIONS, sectionTitle, shareURL } from '../../Public/timeline/js/share.js';

const all = SHARE_SECTIONS.map((s) => s.name);

test('every section chosen: no ?sections=, the IPS or the CCD by format', () => {
  assert.equal(shareURL('p_1', 'ips', all), '/patients/p_1/ips.json');
  assert.equal(shareURL('p_1', 'ccda', all), '/patients/p_1/ccda.xml');
});

test('a choice keeps the required three, in the documents order; a day limits results and vital signs', () => {
  assert.equal(shareURL('p_1', 'ips', ['vital-signs', 'results']), '/patients/p_1/ips.json?sections=problems,allergies,medications,results,vital-signs');
  assert.equal(shareURL('p_1', 'ccda', [], '2024-03-01'), '/patients/p_1/ccda.xml?sections=problems,allergies,medications&since=2024-03-01');
  assert.equal(shareURL('p_1', 'ips', all, 'not a day'), '/patients/p_1/ips.json');
});

test('the id is escaped; titles by name, as the daemon names the sections', () => {
  assert.equal(shareURL('p/../x', 'ips', all), '/patients/p%2F..%2Fx/ips.json');
  assert.equal(sectionTitle('vital-signs'), 'Vital signs');
  assert.deepEqual(all, ['problems', 'allergies', 'medications', 'immunizations', 'results', 'vital-signs', 'procedures', 'devices',
    'past-illness', 'plan-of-care']);
});
