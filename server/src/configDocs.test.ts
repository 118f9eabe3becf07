import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from './config';

// docs/configuration.md must list every environment variable the server reads, so a setting added in code
// without a line of documentation fails here, naming it.

const SERVER_SRC = fileURLToPath(new URL('.', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const SECTION = '## Server settings';

const NAME = '[A-Z][A-Z0-9_]*';
/** `process.env.X`, `env.X`, `env?.X`, `env['X']`. */
const DIRECT_READ = new RegExp(`\\benv\\??\\.(${NAME})\\b|\\benv\\[\\s*['"\`](${NAME})['"\`]\\s*\\]`, 'g');
/** A file that reads a variable by a name it was given (`env[name]`) names it somewhere as a whole string literal. */
const COMPUTED_READ = /\benv\[\s*[a-z]\w*\s*\]/;
const NAME_LITERAL = new RegExp(`['"\`](${NAME})['"\`]`, 'g');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('ForTests.ts') ? [path] : [];
  });
}

/** Environment variables read by the server's source, with the files that read each. */
function variablesReadBy(files: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (name: string, file: string) => found.set(name, [...(found.get(name) ?? []), file.slice(SERVER_SRC.length)]);
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const names = new Set<string>();
    for (const m of text.matchAll(DIRECT_READ)) names.add((m[1] ?? m[2])!);
    if (COMPUTED_READ.test(text)) for (const m of text.matchAll(NAME_LITERAL)) names.add(m[1]!);
    for (const name of names) add(name, file);
  }
  return found;
}

/** Variables named (in backquotes) in the first cell of a table row of the doc's server section. */
function documentedVariables(doc: string): Set<string> {
  const start = doc.indexOf(`\n${SECTION}\n`);
  assert.ok(start >= 0, `docs/configuration.md has no "${SECTION}" heading`);
  const rest = doc.slice(start + SECTION.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const names = new Set<string>();
  for (const line of section.split('\n')) {
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (firstCell) for (const m of firstCell.matchAll(new RegExp(`\`(${NAME})\``, 'g'))) names.add(m[1]!);
  }
  return names;
}

const read = variablesReadBy(sourceFiles(SERVER_SRC));
const documented = documentedVariables(readFileSync(DOC, 'utf8'));

test('docs/configuration.md lists every environment variable the server reads', () => {
  const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, files]) => `${name} (read in ${files.join(', ')})`);
  assert.deepEqual(missing, [], `add a row for each to the "${SECTION}" section of docs/configuration.md (default, meaning, example): ${missing.join('; ')}`);
});

test('docs/configuration.md lists no server setting the server does not read', () => {
  const stale = [...documented].filter((name) => !read.has(name));
  assert.deepEqual(stale, [], `the server's source no longer reads these; remove them from "${SECTION}" or move them to the section of the program that reads them`);
});

test('the source scan finds every variable loadConfig reads, including those read only when another is set', () => {
  const asked = new Set<string>();
  const given: NodeJS.ProcessEnv = { UPTA: 'on', TURN_URL: 'turn:turn.example.org:3478', TURN_SECRET: 'secret' };
  const env = new Proxy(given, {
    get: (target, key) => {
      if (typeof key === 'string') asked.add(key);
      return target[key as string];
    },
  });
  loadConfig(env, '/client');
  assert.ok(asked.size > 20, `loadConfig read only ${asked.size} variables: is the proxy seeing the reads?`);
  assert.deepEqual([...asked].filter((name) => !read.has(name)), []);
});
