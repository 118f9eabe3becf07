/**
 * The server as one ES module: esbuild bundles main.ts with the shared workspace's code, leaving every
 * package (mediasoup, ws, pino, ioredis, zod, ...) to node_modules, so mediasoup finds its worker binary as
 * it does from source. Node then starts the server without the TypeScript loader compiling some 200 modules
 * first: on a loaded 2-core machine an edge answered in 9.9-12.0 s this way against 16.3-20.0 s through tsx
 * (docs/benchmarks.md, "Soak").
 *
 * Each module keeps its own `import.meta.url` (its source file's): the paths found from it (the media and
 * client folders, the encoder's and the SRT listener's binaries, the quality worker's entry, which runs
 * through tsx) are the source tree's, wherever the bundle is written.
 *
 *   tsx server/src/bundle.ts OUT_FILE
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Bare imports are packages, left to node_modules; the workspace's own (@pels/...) are bundled. */
const packagesExternal: Plugin = {
  name: 'packages-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@pels/') ? undefined : { path: args.path, external: true }));
  },
};

/** Each TypeScript module's `import.meta.url` becomes its source file's URL. */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(args.path).href)),
      loader: 'ts',
    }));
  },
};

/** The bundle's text (ES module). */
export async function bundleServer(): Promise<string> {
  const out = await build({
    entryPoints: [MAIN],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Error stacks name the functions: the bundle is not minified.
    minify: false,
    logLevel: 'silent',
    plugins: [packagesExternal, ownImportMetaUrl],
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error('esbuild wrote no bundle');
  return file.text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outFile = process.argv[2];
  if (!outFile) {
    console.error('usage: tsx server/src/bundle.ts OUT_FILE');
    process.exit(2);
  }
  const { writeFile, mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, await bundleServer());
}
