// npm install (the prepare script) compiles the CLI's start-up: bin/cli/startup.ts and what it imports, bundled by
// esbuild into dist/startup.js, so that `ariadne --help`, `--version` and usage errors answer without tsx's loader
// (a quarter of a second a process). Packages stay in node_modules; every dynamic import() (what a command loads
// when it runs) stays a path to its TypeScript source, loaded under tsx once the command is handed over. dist/ is
// generated, never committed; bin/ariadne.js uses it while every source it was built from is unchanged (the mtimes
// in dist/startup.json), else runs the sources.
import { statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import { build, transform, type Plugin } from 'esbuild';
import { nodeVersionNotice } from './cli/node-version.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/**
 * Each source keeps its own import.meta.url (invocation.ts reads package.json beside it), and its dynamic imports
 * stay out of the bundle, rewritten to the same source file as seen from the bundle in `outDir`.
 */
function keepSourcePaths(outDir: string): Plugin {
  const fromOut = (file: string) => relative(outDir, file).split('\\').join('/');
  return {
    name: 'keep-source-paths',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
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

/** Builds startup.js and startup.json into `outDir`; returns the sources it holds, relative to the repository. */
export async function compileStartup(outDir = DIST): Promise<string[]> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, 'bin/cli/startup.ts')],
    outfile: join(outDir, 'startup.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    metafile: true,
    logLevel: 'warning',
    plugins: [keepSourcePaths(outDir)],
  });
  const inputs = Object.keys(result.metafile.inputs).map((f) => relative(ROOT, isAbsolute(f) ? f : join(ROOT, f)));
  const mtimes = Object.fromEntries(inputs.map((f) => [f, statSync(join(ROOT, f)).mtimeMs]));
  writeFileSync(join(outDir, 'startup.json'), `${JSON.stringify({ mtimes }, null, 2)}\n`);
  return inputs;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const inputs = await compileStartup();
  process.stdout.write(`ariadne: the CLI's start-up compiled to ${relative(ROOT, DIST)}/ (${inputs.length} sources)\n`);
  // npm install is where an old Node matters most: said here every time, by the commands once a day
  const notice = nodeVersionNotice(process.version);
  if (notice) process.stderr.write(`${notice}\n`);
}
