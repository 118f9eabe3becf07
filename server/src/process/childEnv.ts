/**
 * The environment a child process (FFmpeg, the encoder, the mediasoup worker,
 * nft) gets: only what a program needs to find itself, its libraries and its
 * locale. The server's own environment holds secrets (OPERATOR_TOKEN,
 * TURN_SECRET, ...), readable in /proc/<pid>/environ of any child, and a child
 * that decodes untrusted media must not carry them.
 */

/** Variables passed on by name; LC_* pass too. */
const PASSED = new Set(['PATH', 'HOME', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'LD_LIBRARY_PATH']);

/** The allow-listed part of `from` (default: this process's environment), plus `extra`. */
export function childEnv(extra: Record<string, string> = {}, from: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const passed = Object.entries(from).filter(([name, value]) => value !== undefined && (PASSED.has(name) || name.startsWith('LC_')));
  return { ...Object.fromEntries(passed), ...extra };
}
