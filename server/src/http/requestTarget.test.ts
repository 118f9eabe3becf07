import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRequestTarget } from './requestTarget';

test('parseRequestTarget: paths, queries and malformed targets', () => {
  const cases: Array<[string | undefined, { path: string; decodedPath: string } | null]> = [
    ['/', { path: '/', decodedPath: '/' }],
    ['/api/streams?x=1', { path: '/api/streams', decodedPath: '/api/streams' }],
    ['/assets/a%20b.js#frag', { path: '/assets/a%20b.js', decodedPath: '/assets/a b.js' }],
    ['/api/viewers/ab%2Fcd', { path: '/api/viewers/ab%2Fcd', decodedPath: '/api/viewers/ab/cd' }],
    ['//', null],
    ['//?x', null],
    ['/a//b', null],
    ['/%E0%A4%A', null],
    ['/%00', null],
    ['/a%0Ab', null],
    ['*', null],
    ['http://example.test/', null],
    ['', null],
    [undefined, null],
  ];
  for (const [target, want] of cases) assert.deepEqual(parseRequestTarget(target), want, String(target));
});
