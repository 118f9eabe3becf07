/**
 * How a source is shown. Viewers (the open API and the players) see its kind
 * and a safe label, never a URL, a path or FFmpeg's words; the operator (and
 * the log) sees it whole, but with URL credentials masked, in FFmpeg's
 * messages too.
 */
import { basename } from 'node:path';
import type { SourceSpec } from './sourceSpec';

/** What viewers are told when a source fails: the error itself may name hosts, paths or credentials. */
export const PUBLIC_SOURCE_ERROR = "the source could not be read; the operator's dashboard has the details";

const MASK = '***';
/** A URL in running text; punctuation after it (FFmpeg writes `URL: error`) is not part of it. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]*[^\s'"<>:.,;)]/gi;

/** The source for viewers: its kind and a label that reveals no address, e.g. "rtsp stream", "file clip.mp4", "lavfi testsrc2". */
export function publicSourceLabel(spec: SourceSpec): string {
  switch (spec.kind) {
    case 'file':
      return `file ${basename(spec.path)}`;
    case 'url':
      return `${spec.scheme} stream`;
    case 'lavfi':
      return spec.audio ? `lavfi ${spec.generator} + ${spec.audio.generator}` : `lavfi ${spec.generator}`;
    case 'live':
      return 'live';
  }
}

/** The source for the operator and the log: the real path, the URL with credentials masked, or the graph. */
export function operatorSourceText(spec: SourceSpec): string {
  switch (spec.kind) {
    case 'file':
      return spec.path;
    case 'url':
      return redactCredentials(spec.url);
    case 'lavfi':
      return spec.audio ? `lavfi:${spec.graph}|${spec.audio.graph}` : `lavfi:${spec.graph}`;
    case 'live':
      return 'live:';
  }
}

/**
 * Masks the credentials of every URL in a text: the user info (`user:pass@`)
 * and every query value (tokens and passphrases travel there); drops fragments.
 */
export function redactCredentials(text: string): string {
  return text.replace(URL_IN_TEXT, (url) => {
    const start = url.indexOf('://') + 3;
    const hostEnd = findFrom(url, start, /[/?#]/);
    const at = url.lastIndexOf('@', hostEnd - 1);
    const authority = at >= start ? `${MASK}@${url.slice(at + 1, hostEnd)}` : url.slice(start, hostEnd);
    const rest = url.slice(hostEnd).replace(/#.*$/, '');
    const q = rest.indexOf('?');
    if (q < 0) return `${url.slice(0, start)}${authority}${rest}`;
    const params = rest.slice(q + 1).split('&').map((p) => (p.includes('=') ? `${p.slice(0, p.indexOf('=') + 1)}${MASK}` : p && MASK));
    return `${url.slice(0, start)}${authority}${rest.slice(0, q)}?${params.join('&')}`;
  });
}

function findFrom(s: string, from: number, re: RegExp): number {
  const i = s.slice(from).search(re);
  return i < 0 ? s.length : from + i;
}
