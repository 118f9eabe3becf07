import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './atomicFile';
import { EMPTY_STATE, type OperatorState } from './operatorState';
import { decodeState, encodeState, STORE_ADVICE, StoreError } from './stateCodec';

export const STATE_FILE_NAME = 'state.json';
/** It may hold the operator token. */
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/**
 * The operator's state in memory and in `<dir>/state.json`. A change applies
 * at once in memory (so it orders with the change to the live server made
 * next to it); saved() resolves once that change is on disk. Writes run one
 * at a time and each writes the latest state, so a burst of changes costs a
 * write or two rather than one per change.
 */
export class StateStore {
  private changes = 0;
  private savedChanges = 0;
  private queue: Promise<void> = Promise.resolve();

  private constructor(
    readonly file: string,
    private current: OperatorState,
  ) {}

  /**
   * Reads the state kept in `dir` (created if missing; no file: nothing
   * kept yet). A file that cannot be read or used throws a StoreError.
   */
  static async open(dir: string): Promise<StateStore> {
    const file = join(dir, STATE_FILE_NAME);
    try {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
    } catch (err) {
      throw new StoreError(`cannot create the state directory ${dir} (${message(err)}); set STATE_DIR to a writable directory`);
    }
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new StateStore(file, EMPTY_STATE);
      throw new StoreError(`cannot read the state file ${file} (${message(err)}). ${STORE_ADVICE}`);
    }
    return new StateStore(file, decodeState(text, file));
  }

  get state(): OperatorState {
    return this.current;
  }

  change(fn: (s: OperatorState) => OperatorState): void {
    this.current = fn(this.current);
    this.changes++;
  }

  /** Resolves once every change made so far is on disk; rejects with a StoreError when it cannot be written (a later call tries again). */
  saved(): Promise<void> {
    const wanted = this.changes;
    const step = this.queue.then(async () => {
      if (this.savedChanges >= wanted) return;
      const upTo = this.changes;
      try {
        await writeFileAtomic(this.file, encodeState(this.current), FILE_MODE);
      } catch (err) {
        throw new StoreError(`cannot write the state file ${this.file} (${message(err)})`);
      }
      this.savedChanges = upTo;
    });
    this.queue = step.catch(() => undefined);
    return step;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
