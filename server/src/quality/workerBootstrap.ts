/**
 * A worker thread's first code, for `new Worker(code, { eval: true })`. The server
 * runs TypeScript through tsx, whose loader does not reach worker threads on Node 20
 * (measured: "Unknown file extension .ts", even with --import tsx in execArgv), so
 * the worker registers it itself before importing its entry.
 */
export function workerBootstrap(entry: URL): string {
  const tsx = import.meta.resolve('tsx/esm/api');
  return `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(entry.href)}); });`;
}
