import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { NftShell } from './nftShell';

const tmp = mkdtempSync(join(tmpdir(), 'pels-nftshell-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** An nft stand-in: prints who started it and what it was given. */
function fakeNft(): string {
  const path = join(tmp, "n'ft");
  writeFileSync(path, '#!/bin/sh\necho "args $*"\necho "parent $PPID"\ncat\n');
  chmodSync(path, 0o755);
  return path;
}

const canRunNft = (() => {
  try {
    execFileSync('nft', ['list', 'tables'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('runs each script with nft -f -, started by the shell, not by node; answers in order', async (t) => {
  const shell = new NftShell(fakeNft());
  t.after(() => shell.close());
  const [a, b] = await Promise.all([shell.run('add table inet a\n'), shell.run("add table inet b # it's\n")]);
  assert.match(a, /^args -f -\nparent (\d+)\nadd table inet a$/);
  assert.match(b, /add table inet b # it's/);
  const parent = Number(/parent (\d+)/.exec(a)![1]);
  assert.notEqual(parent, process.pid, "nft is not node's child");
});

test("nft's errors come back as nft says them, and the next script still runs", { skip: !canRunNft && 'needs nft and CAP_NET_ADMIN' }, async (t) => {
  const shell = new NftShell('nft');
  t.after(() => shell.close());
  const table = `inet pels_nftshell_test_${process.pid}`;
  await assert.rejects(shell.run('add tabel inet x\n'), /syntax error/);
  await shell.run(`add table ${table}\n`);
  assert.match(execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' }), new RegExp(`table ${table}`));
  await shell.run(`delete table ${table}\n`);
  assert.doesNotMatch(execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' }), new RegExp(`table ${table}`));
});

test('a missing nft is named', async (t) => {
  const shell = new NftShell('/nonexistent/nft');
  t.after(() => shell.close());
  await assert.rejects(shell.run('list tables\n'), /^Error: nft not found at \/nonexistent\/nft/);
});

test('the shell is in a process group of its own; once it is gone, node runs nft itself', async () => {
  const before = new Set(childShells());
  const shell = new NftShell(fakeNft());
  await shell.run('list tables\n');
  const [sh] = childShells().filter((pid) => !before.has(pid));
  assert.ok(sh, "the shell is node's child");
  // A signal to node's process group (a terminal's Ctrl-C) does not reach it.
  assert.notEqual(stat(sh).pgid, stat(process.pid).pgid);
  process.kill(sh, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 100));
  const direct = await shell.run('list tables\n');
  assert.equal(Number(/parent (\d+)/.exec(direct)![1]), process.pid);
  shell.close();
});

/** From /proc/PID/stat: the fields after the command name. */
function stat(pid: number): { comm: string; ppid: number; pgid: number } {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const [ppid, pgid] = text.slice(text.lastIndexOf(') ') + 2).split(' ').slice(1, 3).map(Number);
  return { comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), ppid: ppid!, pgid: pgid! };
}

/** This process's children running sh. */
function childShells(): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((pid) => {
    try {
      const s = stat(pid);
      return s.ppid === process.pid && s.comm === 'sh';
    } catch {
      return false; // gone meanwhile
    }
  });
}
