import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Replaces `file` with `text` so that, whenever the process or the machine
 * stops, the file holds either the old or the new text in full: the text goes
 * to a temporary file in the same directory (same file system, so the rename
 * is atomic), is flushed to the disk, renamed over the file, and the
 * directory is flushed so the rename itself survives a power cut.
 * Callers must not run two writes of the same file at once (one temporary name).
 */
export async function writeFileAtomic(file: string, text: string, mode: number): Promise<void> {
  const tmp = `${file}.tmp`;
  try {
    const fh = await open(tmp, 'w', mode);
    try {
      // A temporary file left by a killed process keeps its old mode: set it.
      await fh.chmod(mode);
      await fh.writeFile(text, 'utf8');
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  const dir = await open(dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
