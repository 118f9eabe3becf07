import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../process/childEnv';

/** Both ends of a pipe: FFmpeg gets `writeFd` as an output, a reader thread `readFd`. */
export interface ReferencePipe {
  readFd: number;
  writeFd: number;
}

/**
 * A pipe for FFmpeg's reference planes whose read end a worker thread can own
 * (node's own stdio pipes are handles of the main thread's event loop). Node has
 * no pipe(2), so a FIFO is made in a private directory, both ends opened, and the
 * FIFO and its directory removed at once: what is left is an anonymous pipe,
 * nothing on disk to clean up whatever happens to the run. The read end is opened
 * first, non-blocking (a FIFO's open waits for the other end otherwise); both are
 * close-on-exec (libuv's default), so only the child given `writeFd` in its stdio
 * holds the write end, and the reader sees end-of-file when that child exits.
 */
export function openReferencePipe(): ReferencePipe {
  const dir = mkdtempSync(join(tmpdir(), 'pels-reference-'));
  try {
    const path = join(dir, 'planes');
    const made = spawnSync('mkfifo', ['-m', '600', path], { env: childEnv(), encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.error?.message ?? made.stderr.trim()}`);
    const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return { readFd, writeFd: openSync(path, constants.O_WRONLY) };
    } catch (err) {
      closeSync(readFd);
      throw err;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
