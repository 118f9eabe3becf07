/**
 * Child process of stateStore.crash.test.ts: saves large states numbered
 * n+1, n+2, ... (n: the number of the state it found) to the store in argv[2],
 * one after the other, and prints each number once that state is on disk.
 */
import { StateStore } from './stateStore';
import { EMPTY_STATE, type OperatorState } from './operatorState';

export const LOOP_STREAMS = 2000;

/** State n: its number as alpha, and in every stream's name so a mix of two states would show. */
export function numberedState(n: number): OperatorState {
  const streams = Array.from({ length: LOOP_STREAMS }, (_, i) => ({ id: `s${i}`, name: `state-${n}`, source: `lavfi:testsrc2=size=640x360:rate=30,drawtext=text=${'x'.repeat(400)}${i}` }));
  return { ...EMPTY_STATE, streams, gains: { alphaKbps: n } };
}

if (process.argv[1]?.endsWith('saveLoop.testChild.ts')) {
  const store = await StateStore.open(process.argv[2]!);
  for (let n = store.state.gains.alphaKbps ?? 0; ; ) {
    const next = numberedState(++n);
    store.change(() => next);
    await store.saved();
    process.stdout.write(`${n}\n`);
  }
}
