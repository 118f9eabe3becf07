/**
 * nft scripts run by a shell started once, not by node. Starting a process
 * from node forks node, and a fork copies the page tables of all node holds:
 * at a few hundred viewers (a gigabyte resident) each `nft` run blocked the
 * event loop for about 100 ms, and joins queued behind it. The shell is
 * small, so its forks are cheap, and node only writes to its stdin.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { childEnv } from '../process/childEnv';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { nftFailure, runNft } from './nft';

/** As runNft's: a run that takes longer is killed. */
const NFT_TIMEOUT_S = 10;
/** Ends each script in the shell's input; a script (nft syntax from dscpTable.ts) has no line like it. */
const END = 'PELS_NFT_SCRIPT_END';

interface Pending {
  resolve(stdout: string): void;
  reject(err: Error): void;
}

export class NftShell {
  private readonly sh: ChildProcessWithoutNullStreams;
  /** Runs in the order written; the shell answers each with one line. */
  private readonly pending: Pending[] = [];
  private gone: Error | null = null;

  constructor(private readonly nftPath: string) {
    // Its own process group: a Ctrl-C or a group's SIGTERM stops node, which then still needs nft to drop its table.
    // Node gone, the shell reads the end of its input and exits.
    this.sh = spawn('sh', ['-s'], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: childEnv() });
    this.sh.stdin.on('error', () => {}); // EPIPE once the shell is gone: reported below
    this.sh.stderr.resume();
    createInterface({ input: this.sh.stdout }).on('line', (line) => this.onAnswer(line));
    const end = (why: string) => this.end(new Error(`the shell running nft ${why}`));
    this.sh.once('error', (e) => end(`cannot start: ${e.message}`));
    this.sh.once('close', (code, signal) => end(`exited (${signal ?? code})`));
    this.idle();
  }

  /**
   * `nft -f -` with `script` on stdin, one transaction; resolves with its output, rejects with nft's own account of the error.
   * Once the shell is gone (closed, or killed), node runs nft itself.
   */
  run(script: string): Promise<string> {
    if (this.gone) return runNft(this.nftPath, [], script);
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) this.busy();
      this.pending.push({ resolve, reject });
      const nft = `'${this.nftPath.replace(/'/g, `'\\''`)}'`;
      // The output comes back in base64 on one line, after the exit code.
      this.sh.stdin.write(
        `out=$(timeout -s KILL ${NFT_TIMEOUT_S} ${nft} -f - 2>&1 <<'${END}'\n${script}\n${END}\n)\n` +
          `printf '%s %s\\n' "$?" "$(printf '%s' "$out" | base64 -w0)"\n`,
      );
    });
  }

  /** Ends the shell; runs not answered yet fail. */
  close(): void {
    this.sh.stdin.end();
    this.end(new Error('the shell running nft was closed'));
  }

  private onAnswer(line: string): void {
    const p = this.pending.shift();
    if (!p) return;
    if (this.pending.length === 0) this.idle();
    const [code, out = ''] = line.split(' ');
    const text = Buffer.from(out, 'base64').toString('utf8');
    if (code === '0') p.resolve(text);
    else p.reject(nftFailure(this.nftPath, Number(code), text));
  }

  /** An idle shell does not keep node running (a marker never closed must not hold a process open); a run does. */
  private idle(): void {
    this.sh.unref();
    for (const s of [this.sh.stdin, this.sh.stdout, this.sh.stderr]) (s as unknown as Socket).unref();
  }

  private busy(): void {
    this.sh.ref();
    for (const s of [this.sh.stdin, this.sh.stdout, this.sh.stderr]) (s as unknown as Socket).ref();
  }

  private end(err: Error): void {
    this.gone ??= err;
    for (const p of this.pending.splice(0)) p.reject(this.gone);
  }
}
