/**
 * The state file's text: a JSON envelope with a format name, a version and
 * the SHA-256 of the state's JSON, so that a truncated, damaged or
 * hand-edited file is refused with a message a person can act on instead of
 * being read as something else (or as nothing).
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { operatorStateSchema, type OperatorState } from './operatorState';

const FORMAT = 'pels-state';
export const STATE_VERSION = 1;

/** The file cannot be used: the server must not start with it (and must not overwrite it). */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** What the operator can do about a state file the server refuses. */
export const STORE_ADVICE =
  'Restore it from a backup, or move it aside to start without the saved streams, controller gains and generated operator token.';

const envelopeSchema = z.object({ format: z.literal(FORMAT), version: z.number(), sha256: z.string(), state: z.unknown() });

export function encodeState(state: OperatorState): string {
  const json = JSON.stringify(state);
  return `${JSON.stringify({ format: FORMAT, version: STATE_VERSION, sha256: sha256(json), state })}\n`;
}

/** Throws a StoreError naming the file, what is wrong with it and what to do. */
export function decodeState(text: string, file: string): OperatorState {
  const refuse = (what: string) => new StoreError(`state file ${file} ${what}. ${STORE_ADVICE}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw refuse(`is not valid JSON (truncated or damaged: ${err instanceof Error ? err.message : String(err)})`);
  }
  const envelope = envelopeSchema.safeParse(raw);
  if (!envelope.success) throw refuse('is not a PELS state file (no "format", "version", "sha256" and "state")');
  const { version, sha256: sum, state } = envelope.data;
  if (version !== STATE_VERSION) throw refuse(`has format version ${version}, and this server reads version ${STATE_VERSION}`);
  // JSON.stringify gives back the exact text the checksum was taken of: parsing keeps key order and numbers round-trip.
  if (sha256(JSON.stringify(state)) !== sum) throw refuse('fails its checksum (damaged, or edited by hand)');
  const parsed = operatorStateSchema.safeParse(state);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refuse(`holds an invalid state${issue.path.length ? ` at ${issue.path.join('.')}` : ''}: ${issue.message}`);
  }
  return parsed.data;
}

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}
