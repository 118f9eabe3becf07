import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export class CommandError extends Error {
  override name = 'CommandError';
}

/** Runs a command (in a network namespace when ns is given); rejects with its stderr. */
export async function run(cmd: string, args: readonly string[], ns?: string): Promise<string> {
  const argv = ns ? ['netns', 'exec', ns, cmd, ...args] : [...args];
  const file = ns ? 'ip' : cmd;
  try {
    const { stdout } = await execFileAsync(file, argv, { maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new CommandError(`${ns ? `[${ns}] ` : ''}${cmd} ${args.join(' ')}: ${(e.stderr || e.message).trim()}`);
  }
}
