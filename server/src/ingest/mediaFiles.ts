/**
 * File sources live in the media directories (MEDIA_DIR): a path is refused
 * unless it names, and its real path (links followed) is, a readable regular
 * file inside one of them.
 */
import { access, constants, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { parseSource, SourceError } from './sourcePolicy';
import type { SourceSpec } from './sourceSpec';

/** Parses and checks a source string, looking its file (if it is one) up in the media directories. Throws SourceError. */
export async function resolveSource(input: string, mediaDirs: readonly string[]): Promise<SourceSpec> {
  const parsed = parseSource(input);
  if (parsed.kind !== 'file') return parsed;
  return { kind: 'file', path: await resolveMediaFile(parsed.path, mediaDirs), mediaDirs };
}

/**
 * The real path of a media file. An absolute path must lie inside a media
 * directory; a relative one is looked up in each, in order.
 */
export async function resolveMediaFile(path: string, mediaDirs: readonly string[]): Promise<string> {
  const realDirs = (await Promise.all(mediaDirs.map((d) => realpath(d).catch(() => null)))).filter((d): d is string => d !== null);
  const roots = [...mediaDirs.map((d) => resolve(d)), ...realDirs];
  const candidates = (isAbsolute(path) ? [resolve(path)] : mediaDirs.map((d) => resolve(d, path))).filter((c) => roots.some((r) => isInside(c, r)));
  // Refused before any file is touched: which files exist outside is none of the caller's business.
  if (!candidates.length) throw new SourceError(`source file ${path} is outside the media directories (MEDIA_DIR=${mediaDirs.join(':')})`);
  for (const candidate of candidates) {
    const real = await realpath(candidate).catch(() => null);
    if (real === null) continue;
    if (!realDirs.some((d) => isInside(real, d))) throw new SourceError(`source file ${path} links to outside the media directories`);
    if (!(await stat(real)).isFile()) throw new SourceError(`source ${path} is not a regular file`);
    try {
      await access(real, constants.R_OK);
    } catch {
      continue;
    }
    return real;
  }
  throw new SourceError(`source file not found or not readable: ${path}`);
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel);
}
