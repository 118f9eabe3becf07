/**
 * The stream key an SRT caller shows in its `streamid`: the key alone
 * (`srt://host:port?streamid=KEY`), or SRT's access-control syntax
 * `#!::r=live/KEY,m=publish` (the key is the resource's last segment). A caller
 * that asks to play (`m=request`) is refused: this server takes publishers
 * only. Pure.
 */

/** Why a streamid names no key to check; the message goes to the log. */
export class StreamIdError extends Error {
  override name = 'StreamIdError';
}

const ACCESS_CONTROL_PREFIX = '#!::';

export function keyOfStreamId(streamId: string): string {
  if (!streamId.startsWith(ACCESS_CONTROL_PREFIX)) {
    if (!streamId) throw new StreamIdError('no streamid: publish to srt://host:port?streamid=<stream key>');
    return streamId;
  }
  const fields = new Map<string, string>();
  for (const pair of streamId.slice(ACCESS_CONTROL_PREFIX.length).split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0) fields.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const mode = fields.get('m') ?? 'request';
  if (mode !== 'publish') throw new StreamIdError(`streamid mode "${mode}": this server takes publishers only (m=publish)`);
  const key = (fields.get('r') ?? '').split('/').at(-1);
  if (!key) throw new StreamIdError('streamid has no resource: #!::r=<stream key>,m=publish');
  return key;
}
