import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { RequestError } from '../errors';
import { AddressRateLimit } from '../limits/addressRateLimit';
import { placementRoutes } from './placementRoutes';

test('/api/place has a rate limit of its own per address: past it 429 with when to retry, other addresses unaffected', async () => {
  let refused = 0;
  const [route] = placementRoutes({
    registry: () => undefined,
    limit: new AddressRateLimit({ burst: 2, perMinute: 2 }),
    addressOf: (req) => req.headers['x-test-address'] as string,
    onRefused: () => refused++,
  });
  const ask = (address: string) =>
    Promise.resolve(route!.handler({ url: '/api/place?stream=default', headers: { 'x-test-address': address } } as unknown as IncomingMessage, {})).then(
      () => 'answered',
      (err: unknown) => (err instanceof RequestError ? `${err.code} ${err.retryAfterS ?? ''}`.trim() : String(err)),
    );
  // A cluster node still starting (its registry not made yet) answers 503 while the address has requests left.
  assert.deepEqual([await ask('10.0.0.1'), await ask('10.0.0.1'), await ask('10.0.0.1')], ['unavailable', 'unavailable', 'rate_limited 30']);
  assert.equal(await ask('10.0.0.2'), 'unavailable');
  assert.equal(refused, 1);
});
