/**
 * The server's live JavaScript memory after a full garbage collection, read
 * through its inspector (a server started with `inspect: true`). Resident
 * memory alone cannot tell a leak from a heap V8 has not collected or shrunk
 * yet; what survives a full collection can.
 */
import WebSocket from 'ws';

export interface LiveMemory {
  /** V8 heap in use after the collection. */
  heapUsedKiB: number;
  /** Memory held outside the heap by JavaScript objects (Buffers, ArrayBuffers). */
  externalKiB: number;
  /**
   * V8's compiled code with its metadata (machine code, bytecode, deoptimization
   * data, source positions): part of `heapUsedKiB`, apart because it grows as
   * the program's paths first run and get optimized, not as data is kept.
   */
  codeKiB: number;
}

/** Sends inspector-protocol commands in order on one connection; resolves with each result. */
async function inspect(url: string, commands: Array<{ method: string; params?: object }>): Promise<unknown[]> {
  const ws = new WebSocket(url);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const results: unknown[] = [];
    for (const [i, c] of commands.entries()) {
      results.push(
        await new Promise((resolve, reject) => {
          const onMessage = (data: WebSocket.RawData) => {
            const msg = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
            if (msg.id !== i) return; // an event, or another command's answer
            ws.off('message', onMessage);
            if (msg.error) reject(new Error(`${c.method}: ${msg.error.message}`));
            else resolve(msg.result);
          };
          ws.on('message', onMessage);
          ws.send(JSON.stringify({ id: i, ...c }));
        }),
      );
    }
    return results;
  } finally {
    ws.close();
    // The server's end of the connection is one of its descriptors: wait until it is gone.
    await new Promise<void>((r) => (ws.readyState === WebSocket.CLOSED ? r() : ws.once('close', () => r())));
  }
}

const READ_MEMORY = `JSON.stringify({
  ...process.memoryUsage(),
  code: ((c) => c.code_and_metadata_size + c.bytecode_and_metadata_size)(require('v8').getHeapCodeStatistics()),
})`;

export async function liveMemory(inspectorUrl: string): Promise<LiveMemory> {
  const [, evaluated] = await inspect(inspectorUrl, [
    { method: 'HeapProfiler.collectGarbage' },
    // The command-line API gives `require` in an ES module's process, for v8's code statistics.
    { method: 'Runtime.evaluate', params: { expression: READ_MEMORY, includeCommandLineAPI: true, returnByValue: true } },
  ]);
  const usage = JSON.parse((evaluated as { result: { value: string } }).result.value) as { heapUsed: number; external: number; code: number };
  return { heapUsedKiB: Math.round(usage.heapUsed / 1024), externalKiB: Math.round(usage.external / 1024), codeKiB: Math.round(usage.code / 1024) };
}
