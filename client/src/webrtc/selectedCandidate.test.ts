import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectedCandidateType } from './selectedCandidate';

const stats = (entries: { id: string; type: string; [k: string]: unknown }[]) => new Map(entries.map((e) => [e.id, e]));

test('the local candidate of the pair the transport selected', () => {
  const report = stats([
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CPb' },
    { id: 'CPa', type: 'candidate-pair', localCandidateId: 'Lhost', remoteCandidateId: 'R1' },
    { id: 'CPb', type: 'candidate-pair', localCandidateId: 'Lrelay', remoteCandidateId: 'R1' },
    { id: 'Lhost', type: 'local-candidate', candidateType: 'host' },
    { id: 'Lrelay', type: 'local-candidate', candidateType: 'relay', relayProtocol: 'tcp' },
  ]);
  assert.equal(selectedCandidateType(report), 'relay');
});

test('a pair marked selected when the transport does not say; nothing before a pair is chosen', () => {
  const report = stats([
    { id: 'CPa', type: 'candidate-pair', localCandidateId: 'L1', selected: true },
    { id: 'L1', type: 'local-candidate', candidateType: 'host' },
  ]);
  assert.equal(selectedCandidateType(report), 'host');
  assert.equal(selectedCandidateType(stats([{ id: 'T01', type: 'transport' }, { id: 'L1', type: 'local-candidate', candidateType: 'host' }])), undefined);
});
