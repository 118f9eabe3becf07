/**
 * Writes a Brotli (.br) and a gzip (.gz) copy beside each text file of the
 * built player, so the server sends the player in a third of the bytes
 * without compressing on every request (see server/src/http/staticFiles.ts).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TEXT = new Set(['.html', '.js', '.css', '.svg', '.json', '.map']);
/** Below this, compression saves less than the header it adds costs. */
const MIN_BYTES = 1024;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

const dist = process.argv[2] ?? 'dist';
let before = 0;
let after = 0;
for (const file of files(dist)) {
  if (!TEXT.has(extname(file))) continue;
  const data = readFileSync(file);
  if (data.length < MIN_BYTES) continue;
  const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  before += data.length;
  after += br.length;
}
console.log(`precompressed: ${Math.round(before / 1024)} kB of text as ${Math.round(after / 1024)} kB Brotli`);
