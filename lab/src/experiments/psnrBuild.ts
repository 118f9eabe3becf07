/** Child process of loadClipTable(): `tsx psnrBuild.ts CLIP OUT.json` builds the clip's PSNR table and writes it. */
import { buildClipTable, writeClipTable } from './psnrClip';

const [clip, file] = process.argv.slice(2);
if (!clip || !file) {
  process.stderr.write('usage: psnrBuild.ts CLIP OUT.json\n');
  process.exit(2);
}
buildClipTable(clip).then(
  (table) => writeClipTable(table, file),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
