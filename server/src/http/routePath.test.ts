import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchPath } from './routePath';

test('matchPath: literal paths, parameters and mismatches', () => {
  const cases: Array<[string, string, Record<string, string> | null]> = [
    ['/api/streams', '/api/streams', {}],
    ['/api/streams', '/api/streams/', null],
    ['/api/streams/:id', '/api/streams/default', { id: 'default' }],
    ['/api/streams/:id', '/api/streams/', null],
    ['/api/streams/:id', '/api/streams/a/b', null],
    ['/api/viewers/:id/mode', '/api/viewers/ab%2012/mode', { id: 'ab 12' }],
    ['/api/viewers/:id/mode', '/api/viewers/ab12/other', null],
    ['/api/viewers/:id', '/api/viewers/%E0%A4%A', null],
  ];
  for (const [pattern, path, want] of cases) assert.deepEqual(matchPath(pattern, path), want, `${pattern} vs ${path}`);
});
