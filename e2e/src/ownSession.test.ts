/**
 * scripts/ownSession.sh and its use by `npm test`: a suite that stops a
 * process of its own (a test's SIGSTOP on FFmpeg) must not be hung up, every
 * process of it at once, when the shell that started it as a job exits.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');
const OWN_SESSION = join(ROOT, 'scripts/ownSession.sh');

/** Fields of /proc/PID/stat after the command name: state, ppid, pgrp, session; null once the process is gone. */
function stat(pid: number): { state: string; pgrp: number; session: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, , pgrp, session] = text.slice(text.lastIndexOf(') ') + 2).split(' ');
    return { state: state!, pgrp: Number(pgrp), session: Number(session) };
  } catch {
    return null;
  }
}

/** Running, or stopped: not gone and not a zombie left to a parent that does not reap it. */
const alive = (pid: number): boolean => (stat(pid)?.state ?? 'Z') !== 'Z';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * The hazard: a shell with job control (in a session of its own, away from this
 * test's processes) starts `job` as a background job, a process group whose only
 * parent outside it is that shell, and exits once the job has written the pids
 * of its two processes: a "suite" process and a stopped one (a test's SIGSTOP).
 */
async function jobOfExitingShell(job: (payload: string) => string): Promise<{ suite: number; stopped: number; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'pels-own-session-'));
  const pids = join(dir, 'pids');
  const payload = join(dir, 'payload.sh');
  writeFileSync(payload, `sleep 60 & suite=$!\nsleep 60 & kill -STOP $!\necho "$suite $!" > ${pids}.tmp && mv ${pids}.tmp ${pids}\nwait\n`);
  const shell = spawn('bash', ['-c', `set -m\n${job(payload)} &\nwhile [ ! -s ${pids} ]; do sleep 0.02; done`], { detached: true, stdio: 'ignore' });
  const exited = new Promise((r) => shell.once('exit', r));
  await exited;
  const [suite, stopped] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
  assert.ok(suite > 1 && stopped > 1, `pids ${suite} ${stopped}`);
  return { suite, stopped, dir };
}

function cleanUp(j: { suite: number; stopped: number; dir: string }): void {
  for (const pid of [j.suite, j.stopped]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(j.dir, { recursive: true, force: true });
}

test("without a session of its own, a job's processes are all hung up when its shell exits while one of them is stopped (the hazard this guards against)", async () => {
  const j = await jobOfExitingShell((payload) => `bash ${payload}`);
  try {
    // SIGHUP and SIGCONT reach the group together, but each process ends in its own time.
    await until(() => !alive(j.suite) && !alive(j.stopped), 'the kernel to hang up both processes of the job');
  } finally {
    cleanUp(j);
  }
});

test('in ownSession.sh the same job lives on, in a session of its own, its stopped process still stopped', async () => {
  const j = await jobOfExitingShell((payload) => `bash ${OWN_SESSION} bash ${payload}`);
  try {
    await sleep(300); // the hangup comes as the shell exits: give it time to show
    assert.equal(alive(j.suite), true, 'the suite process lives on');
    assert.equal(stat(j.stopped)?.state, 'T');
    const s = stat(j.suite)!;
    assert.equal(s.pgrp, s.session, "the session's first group");
  } finally {
    cleanUp(j);
  }
});

test("ownSession.sh passes on the command's exit status; TERM to it ends every process of the session, a stopped one too", async () => {
  assert.equal(spawnSync('bash', [OWN_SESSION, 'bash', '-c', 'exit 3']).status, 3);
  assert.equal(spawnSync('bash', [OWN_SESSION]).status, 2, 'no command: usage');

  const dir = mkdtempSync(join(tmpdir(), 'pels-own-session-'));
  const pids = join(dir, 'pids');
  try {
    const wrapper = spawn('bash', [OWN_SESSION, 'bash', '-c', `sleep 60 & a=$!; sleep 60 & kill -STOP $!; echo "$a $!" > ${pids}.tmp && mv ${pids}.tmp ${pids}; wait`], { stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => wrapper.once('exit', (code) => r(code)));
    await until(() => existsSync(pids), 'the pids');
    const [a, b] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
    wrapper.kill('SIGTERM');
    const code = await exited;
    assert.notEqual(code, 0);
    await until(() => !alive(a) && !alive(b), 'every process of the session to end');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm test (scripts/test.sh) runs every stage in one session of its own', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pels-own-session-'));
  try {
    // Stand-ins for the tools the stages run: each notes its session and fails, so the script runs through in a moment.
    const log = join(dir, 'sessions');
    for (const tool of ['npx', 'npm', 'go']) {
      writeFileSync(join(dir, tool), `#!/usr/bin/env bash\nps -o sid= -p $$ | tr -d ' ' >> ${log}\nexit 1\n`);
      chmodSync(join(dir, tool), 0o755);
    }
    const r = spawnSync('bash', [join(ROOT, 'scripts/test.sh')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` } });
    assert.notEqual(r.status, 0);
    assert.match(r.stdout.trim().split('\n').at(-1)!, /^0 passed, \d+ failed, 0 skipped$/);
    const sessions = new Set(readFileSync(log, 'utf8').trim().split('\n').map(Number));
    assert.equal(sessions.size, 1, `stages in sessions ${[...sessions].join(', ')}`);
    assert.notEqual([...sessions][0], stat(process.pid)!.session, "not this process's session");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
