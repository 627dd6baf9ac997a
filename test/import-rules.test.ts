// The house's import rules, read from the code's own imports with TypeScript's pre-processor
// (static imports, re-exports and import() calls): no file imports itself through others (no circles), every
// arrow runs down the layers below unless it is one of the named exceptions, and the core stays free of the AWS
// SDK (but for its named adapters) and of Lambda's types. A new circle or upward arrow fails here, naming the files.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/**
 * The layers, lowest first: a file may import its own layer and those below. The first prefix that matches a
 * path decides its layer.
 */
const LAYERS: Array<[layer: number, prefix: string]> = [
  [0, 'aws-facts/'],
  [2, 'functions/'], // thin glue over the core, bundled into the functions
  [1, 'core/'], // the core: config, maze, engine, store, providers, and what the machines agree on (machine/)
  [3, 'results/'], // the read model: every read of results the CLI, the viewer and the reports share
  [3, 'reports/'], // presents results: statistics, reports, replays, exports
  [3, 'lib/'], // the CDK stack
  [4, 'state-machine/'], // the synthesized machines run on a laptop
  [4, 'simulators/'], // local servers speaking AWS's and Ollama's protocols
  [5, 'viewer/'],
  [6, 'bin/'], // the CLI and the CDK app
  [7, 'rehearsal/'],
  [7, 'bench/'],
];

/** Upward arrows that stay, each with why (the architecture page names them too). */
const ALLOWED_UP: Array<{ from: string; to: string; why: string }> = [];

/** Packages the core must not import: it runs the same in Lambda, locally and in tests. */
const NOT_IN_CORE = [/^@aws-sdk\//, /^aws-lambda$/, /^@types\/aws-lambda$/];

/**
 * The core's adapters to AWS services, the only core files that may name the AWS SDK: each speaks one service's
 * protocol (to AWS, or to the simulator that speaks it) behind a port of the core's own.
 */
const SDK_ADAPTERS: Record<string, string> = {
  'core/providers/llm/bedrock-model.ts': 'the Bedrock provider (Converse)',
  'core/providers/llm/bedrock-caching.ts': "the Converse request's cache points, typed by the SDK",
  'core/config/ssm-source.ts': 'settings and secrets from Parameter Store',
  'core/store/data-api-sql.ts': 'the store over the RDS Data API',
};

/**
 * Packages only the Lambda glue may import: the core logs and measures through its own port (core/telemetry), which
 * the handlers implement with Powertools in Lambda, and the CLI with JSON lines.
 */
const ONLY_IN_HANDLERS = [/^@aws-lambda-powertools\//];

const SOURCE = /\.(ts|mts|mjs|js)$/;

function sources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(ROOT, dir))) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) {
        if (name !== 'node_modules' && name !== 'assets') walk(path);
      } else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const [, prefix] of LAYERS) if (existsSync(join(ROOT, prefix))) walk(prefix.slice(0, -1));
  return [...new Set(out)].sort();
}

const layerOf = (file: string) => LAYERS.find(([, prefix]) => file.startsWith(prefix))?.[0];

interface Imports {
  files: string[];
  packages: string[];
}

function importsOf(file: string): Imports {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  const files: string[] = [];
  const packages: string[] = [];
  for (const { fileName } of info.importedFiles) {
    if (!fileName.startsWith('.')) {
      packages.push(fileName);
      continue;
    }
    const target = relative(ROOT, resolve(dirname(join(ROOT, file)), fileName));
    if (existsSync(join(ROOT, target)) && statSync(join(ROOT, target)).isFile()) files.push(target);
  }
  return { files, packages };
}

const FILES = sources();
const GRAPH = new Map(FILES.map((f) => [f, importsOf(f)]));

/** Strongly connected components of more than one file (Tarjan): the circles. */
function circles(): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of GRAPH.get(v)?.files ?? []) {
      if (!GRAPH.has(w)) continue;
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) out.push(component.sort());
    }
  };
  for (const f of FILES) if (!order.has(f)) visit(f);
  return out;
}

describe('import rules', () => {
  it('reads the whole house: every source file has a layer', () => {
    expect(FILES.length).toBeGreaterThan(200);
    expect(FILES.filter((f) => layerOf(f) === undefined)).toEqual([]);
  });

  it('has no circles: no file imports itself through others', () => {
    const found = circles().map((c) =>
      c.map(
        (f) =>
          `${f} -> ${GRAPH.get(f)!
            .files.filter((t) => c.includes(t))
            .join(', ')}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it('runs every arrow down the layers, but for the named exceptions', () => {
    const up: string[] = [];
    for (const [file, { files }] of GRAPH)
      for (const target of files) {
        const [from, to] = [layerOf(file)!, layerOf(target)];
        if (to === undefined || to <= from) continue;
        if (ALLOWED_UP.some((a) => file.startsWith(a.from) && target.startsWith(a.to))) continue;
        up.push(`${file} (layer ${from}) -> ${target} (layer ${to})`);
      }
    expect(up).toEqual([]);
  });

  it('keeps the core free of the AWS SDK and of Lambda types, but for its named adapters', () => {
    const found = [...GRAPH]
      .filter(([file]) => file.startsWith('core/') && !(file in SDK_ADAPTERS))
      .flatMap(([file, { packages }]) =>
        packages.filter((p) => NOT_IN_CORE.some((re) => re.test(p))).map((p) => `${file} -> ${p}`),
      );
    expect(found).toEqual([]);
    for (const file of Object.keys(SDK_ADAPTERS)) expect(GRAPH.has(file), file).toBe(true);
  });

  it('keeps Powertools in the Lambda handlers: the core, the CLI and the local runner never load it', () => {
    const found = [...GRAPH]
      .filter(([file]) => !file.startsWith('functions/'))
      .flatMap(([file, { packages }]) =>
        packages.filter((p) => ONLY_IN_HANDLERS.some((re) => re.test(p))).map((p) => `${file} -> ${p}`),
      );
    expect(found).toEqual([]);
    // and it is there to keep out: the handlers do import it
    expect([...GRAPH].some(([, { packages }]) => packages.some((p) => ONLY_IN_HANDLERS[0].test(p)))).toBe(true);
  });

  it('catches what it is for: a circle and an upward arrow are seen in a made-up graph', () => {
    // the same checks over a graph of two files that import each other across layers
    const lower = 'core/engine/a.ts';
    const upper = 'viewer/b.ts';
    expect(layerOf(lower)! < layerOf(upper)!).toBe(true);
    const saved = new Map(GRAPH);
    GRAPH.set(lower, { files: [upper], packages: [] });
    GRAPH.set(upper, { files: [lower], packages: [] });
    FILES.push(lower, upper);
    try {
      expect(circles()).toContainEqual([lower, upper]);
    } finally {
      FILES.splice(FILES.indexOf(lower), 2);
      GRAPH.clear();
      for (const [k, v] of saved) GRAPH.set(k, v);
    }
  });
});
