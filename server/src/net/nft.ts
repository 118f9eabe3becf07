/** Runs the `nft` command: one process per call, a script on stdin is one transaction. */
import { spawn } from 'node:child_process';
import { childEnv } from '../process/childEnv';

const NFT_TIMEOUT_MS = 10_000;

/**
 * Runs `nft <args>` (with `-f -` and the script on stdin when one is given)
 * and resolves with its stdout; rejects with nft's own account of the error.
 */
export function runNft(path: string, args: string[], script?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(path, script === undefined ? args : [...args, '-f', '-'], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv() });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => proc.kill('SIGKILL'), NFT_TIMEOUT_MS);
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    proc.stdin.on('error', () => {}); // EPIPE when nft is missing or exits early: reported below
    proc.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(e.code === 'ENOENT' ? `nft not found at ${path} — install nftables to mark DSCP` : `cannot run ${path}: ${e.message}`));
    });
    proc.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(firstError(stderr) ?? `nft exited with ${signal ?? code}`));
    });
    proc.stdin.end(script ?? '');
  });
}

/** A failed run as a shell reports it: exit code 127 is a command not found, 137 one killed (the timeout). */
export function nftFailure(path: string, code: number, output: string): Error {
  if (code === 127) return new Error(`nft not found at ${path} — install nftables to mark DSCP`);
  return new Error(firstError(output) ?? `nft exited with ${code === 137 ? 'SIGKILL' : code}`);
}

/** The line of nft's stderr that says what went wrong. */
function firstError(stderr: string): string | undefined {
  if (/Operation not permitted|Permission denied/.test(stderr)) {
    return 'Operation not permitted — run the server as root or with CAP_NET_ADMIN to mark DSCP';
  }
  const line = stderr.split('\n').find((l) => l.includes('Error:')) ?? stderr.split('\n').find((l) => l.trim() !== '');
  return line?.replace(/^.*?Error: /, '').trim();
}

/** An nft failure as a viewer's `dscp.reason` and the log show it. */
export function describeNftError(e: unknown): string {
  return `nftables: ${e instanceof Error ? e.message : String(e)}`;
}
