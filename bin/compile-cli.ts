// npm install (the prepare script) bundles the CLI with esbuild into dist/: its start-up (dist/startup.js), so --help,
// --version and usage errors answer at once, and the whole command line (dist/ariadne.js and its chunks), so a command
// runs without tsx's loader (about half a second of CPU a process for some 300 modules). Packages stay in
// node_modules; dist/ is never committed. bin/ariadne.js uses each part while its sources are unchanged (the mtimes in
// dist/*.json), else runs the sources under tsx.
import { statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { build, transform, type Metafile, type Plugin } from 'esbuild';
import { nodeVersionNotice } from './cli/node-version.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/**
 * Each source keeps its own import.meta.url (invocation.ts reads package.json beside it; migrations, pages and
 * schemas are read beside their modules). For the start-up, its dynamic imports stay out of the bundle, rewritten
 * to the same source file as seen from the bundle in `outDir`; the whole CLI bundles them (`externalDynamic` false).
 * Every output file is in `outDir` itself (chunks too): the rewritten paths are relative to it.
 */
function keepSourcePaths(outDir: string, externalDynamic = true): Plugin {
  const fromOut = (file: string) => relative(outDir, file).split('\\').join('/');
  return {
    name: 'keep-source-paths',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (!externalDynamic || args.kind !== 'dynamic-import') return undefined;
        return { path: `./${fromOut(resolve(args.resolveDir, args.path))}`, external: true };
      });
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta')) return undefined;
        // on the syntax tree, not the text: an `import.meta.url` inside a string stays as written
        const { code } = await transform(source, {
          loader: 'ts',
          format: 'esm',
          sourcefile: args.path,
          define: {
            'import.meta.url': 'sourceUrl',
            'import.meta.filename': 'sourceFilename',
            'import.meta.dirname': 'sourceDirname',
          },
        });
        const contents =
          "import { dirname as sourceDirnameOf } from 'node:path';\n" +
          "import { fileURLToPath as sourcePathOf } from 'node:url';\n" +
          `const sourceUrl = new URL(${JSON.stringify(fromOut(args.path))}, import.meta.url).href;\n` +
          'const sourceFilename = sourcePathOf(sourceUrl);\n' +
          'const sourceDirname = sourceDirnameOf(sourceFilename);\n' +
          code;
        return { contents, loader: 'js' };
      });
    },
  };
}

/** The sources a build holds, relative to the repository, with their mtimes in `<name>.json` beside its output. */
function recordSources(outDir: string, name: string, metafile: Metafile): string[] {
  const inputs = Object.keys(metafile.inputs).map((f) => relative(ROOT, isAbsolute(f) ? f : join(ROOT, f)));
  const mtimes = Object.fromEntries(inputs.map((f) => [f, statSync(join(ROOT, f)).mtimeMs]));
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ mtimes }, null, 2)}\n`);
  return inputs;
}

const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  metafile: true,
  logLevel: 'warning',
} as const;

/** Builds startup.js and startup.json into `outDir`; returns the sources it holds, relative to the repository. */
export async function compileStartup(outDir = DIST): Promise<string[]> {
  const result = await build({
    ...COMMON,
    entryPoints: [join(ROOT, 'bin/cli/startup.ts')],
    outfile: join(outDir, 'startup.js'),
    plugins: [keepSourcePaths(outDir)],
  });
  return recordSources(outDir, 'startup', result.metafile);
}

/**
 * Builds the whole CLI into `outDir`: ariadne.js, the chunks its dynamic imports became (split, so a command loads
 * what it uses, as under tsx), and ariadne.json; returns the sources it holds.
 */
export async function compileCli(outDir = DIST): Promise<string[]> {
  const result = await build({
    ...COMMON,
    entryPoints: { ariadne: join(ROOT, 'bin/ariadne.ts') },
    outdir: outDir,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    plugins: [keepSourcePaths(outDir, false)],
  });
  return recordSources(outDir, 'ariadne', result.metafile);
}

/**
 * One module and what it imports, compiled as the CLI is (for the benchmarks: they time the code `ariadne` runs,
 * not the sources under tsx, whose transform names every function it creates, a call each time). `outDir` must be
 * inside the repository: the packages stay in node_modules, found from there. Returns the output's file URL.
 */
export async function compileModule(entry: string, outDir: string): Promise<string> {
  const name = relative(ROOT, entry).replace(/\.ts$/, '').replaceAll(/[\\/]/g, '-');
  await build({
    ...COMMON,
    entryPoints: { [name]: resolve(ROOT, entry) },
    outdir: outDir,
    plugins: [keepSourcePaths(outDir, false)],
  });
  return pathToFileURL(join(outDir, `${name}.js`)).href;
}

/** Both parts, into `outDir`. */
export async function compileAll(outDir = DIST): Promise<{ startup: string[]; cli: string[] }> {
  const [startup, cli] = await Promise.all([compileStartup(outDir), compileCli(outDir)]);
  return { startup, cli };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { cli } = await compileAll();
  process.stdout.write(`ariadne: the CLI compiled to ${relative(ROOT, DIST)}/ (${cli.length} sources)\n`);
  // npm install is where an old Node matters most: said here every time, by the commands once a day
  const notice = nodeVersionNotice(process.version);
  if (notice) process.stderr.write(`${notice}\n`);
}
