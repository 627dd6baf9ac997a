// Comments say why, briefly: a file's opening comment is at most five lines (detail goes beside the code it
// explains, or into docs/), and an AWS rule is cited by its key in aws-facts/facts.ts, the table of AWS's pages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allFacts } from '../aws-facts/facts.ts';
import { houseFiles } from './support/house-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODE = /\.(ts|mts|mjs|js)$/;
const MAX_HEADER_LINES = 5;

/**
 * Pages cited for a rule that has no fact in aws-facts/facts.ts yet, by file: each stays a URL until it gets one.
 * A page not listed here fails the test; one listed but no longer cited fails it too, so the list stays current.
 */
const UNFACTED_PAGES: Record<string, string[]> = {
  // the stack statuses whose outputs describe working resources
  'bin/cli/aws-stack.ts': ['AWSCloudFormation/latest/UserGuide/using-cfn-describing-stacks.html'],
  // some models' tokens count at a higher rate than billed
  'bin/cli/bedrock-quotas.ts': ['bedrock/latest/userguide/quotas.html'],
  // data, not comments: the model table's sources, kept with each row it prices and windows
  'core/config/model-table.ts': [
    'bedrock/latest/userguide/claude-messages-adaptive-thinking.html',
    'bedrock/latest/userguide/model-lifecycle.html',
    'bedrock/latest/userguide/model-card-anthropic-claude',
  ],
  // Converse's stopReason values; a reasoning block sent back with its signature
  'core/providers/llm/bedrock-model.ts': [
    'bedrock/latest/APIReference/API_runtime_MessageStopEvent.html',
    'bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html',
  ],
  // unreserved concurrency's definition; the state machine's and a Task's TimeoutSeconds
  'core/sweeps/sweep-capacity.ts': [
    'lambda/latest/api/API_AccountLimit.html',
    'step-functions/latest/dg/sfn-stuck-execution.html',
    'step-functions/latest/dg/state-task.html',
  ],
  // GetAccountSettings' request and answer
  'functions/lambda-concurrency.ts': ['lambda/latest/api/API_GetAccountSettings.html'],
  'simulators/lambda-sim.ts': ['lambda/latest/api/API_GetAccountSettings.html'],
  // how Bedrock names its quotas
  'simulators/service-quotas-sim.ts': ['bedrock/latest/userguide/quotas-increase.html'],
  // Sandbox.Timedout for a timeout in the Init phase
  'core/machine/states.ts': ['lambda/latest/dg/troubleshooting-invocation.html'],
  // Marketplace subscription on first call; Legacy models refused after inactivity
  'core/providers/llm/bedrock-access.ts': [
    'bedrock/latest/userguide/model-access.html',
    'bedrock/latest/userguide/model-lifecycle.html',
  ],
  // the Data API's typed Field members per Postgres type
  'core/store/column-values.ts': [
    'AmazonRDS/latest/AuroraUserGuide/data-api-operations.html',
    'rdsdataservice/latest/APIReference/API_Field.html',
  ],
  // DatabaseErrorException carries a message only
  'core/store/sql-state.ts': ['botocore/latest/reference/services/rds-data/client/exceptions/'],
  // an AWS managed policy's document
  'rehearsal/iam.ts': ['aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html'],
  // Invoke's FunctionError "Unhandled"; Sandbox.Timedout
  'rehearsal/lambda-process.ts': [
    'lambda/latest/api/API_Invoke.html',
    'lambda/latest/dg/troubleshooting-invocation.html',
  ],
  // the Distributed Map's IAM actions; ResultWriter's files
  'rehearsal/sweep-machine.ts': [
    'step-functions/latest/dg/iam-policies-eg-dist-map.html',
    'step-functions/latest/dg/input-output-resultwriter.html',
  ],
  // model lifecycles; adaptive-thinking-only models
  'simulators/bedrock-catalog.ts': ['bedrock/latest/userguide/model-lifecycle.html'],
  'simulators/bedrock-model-rules.ts': ['bedrock/latest/userguide/claude-messages-adaptive-thinking.html'],
  // GetFoundationModel's modelLifecycle
  'simulators/bedrock-sim.ts': ['bedrock/latest/APIReference/API_GetFoundationModel.html'],
  // CloudWatch's metric billing, a price rather than a limit
  'bench/prices.ts': ['AmazonCloudWatch/latest/monitoring/cloudwatch_billing.html'],
};

/** Lines of the comment a file opens with (// lines or a block comment), a #! line and tool directives not counted. */
function headerLines(text: string): number {
  const lines = text.split('\n');
  let i = lines[0]?.startsWith('#!') ? 1 : 0;
  let count = 0;
  let inBlock = false;
  for (; i < lines.length; i++) {
    const t = lines[i].trim();
    if (!inBlock && /^(\/\/\/ <reference|\/\* (global|eslint))/.test(t)) continue;
    if (inBlock) {
      count++;
      if (t.includes('*/')) inBlock = false;
    } else if (t.startsWith('//')) count++;
    else if (t.startsWith('/*')) {
      count++;
      inBlock = !t.includes('*/');
    } else break;
  }
  return count;
}

/** The docs.aws.amazon.com pages a text cites, as the path after the host. */
function awsDocPages(text: string): string[] {
  return [...text.matchAll(/docs\.aws\.amazon\.com\/(\S+?)(?=[\s'"`),;]|$)/g)].map((m) => m[1]);
}

const ALL = houseFiles(CODE);

/** Each key cited as `aws-facts: KEY` (a trailing `*` stands for every key it begins), with its file. */
function citedFactKeys(file: string, text: string): Array<{ file: string; key: string }> {
  return [...text.matchAll(/aws-facts: ([a-z][\w.-]*[\w*])/g)].map((m) => ({ file, key: m[1] }));
}

describe('comments say why, briefly', () => {
  it('counts a header by its comment lines, not its directives', () => {
    expect(headerLines('#!/usr/bin/env node\n// one\n// two\nimport x from "y";\n')).toBe(2);
    expect(headerLines('/// <reference lib="dom" />\n/**\n * a\n */\nconst x = 1;\n')).toBe(3);
    expect(headerLines('// a\n/* global Chart */\nconst x = 1;\n')).toBe(1);
    expect(headerLines('import x from "y";\n// not a header\n')).toBe(0);
  });

  it(`no file opens with a comment of more than ${MAX_HEADER_LINES} lines`, () => {
    const long = ALL.flatMap((file) => {
      const n = headerLines(readFileSync(join(ROOT, file), 'utf8'));
      return n > MAX_HEADER_LINES ? [`${file}: ${n} lines`] : [];
    });
    expect(long).toEqual([]);
  });

  it('code outside aws-facts/ cites an AWS rule by its fact key, not by its page', () => {
    const cited = ALL.filter(
      (file) => !file.startsWith('aws-facts/') && file !== join('test', 'source-comments.test.ts'),
    ).flatMap((file) => awsDocPages(readFileSync(join(ROOT, file), 'utf8')).map((page) => ({ file, page })));
    const allowed = (file: string, page: string) => (UNFACTED_PAGES[file] ?? []).some((p) => page.startsWith(p));
    expect(cited.filter(({ file, page }) => !allowed(file, page)).map(({ file, page }) => `${file}: ${page}`)).toEqual(
      [],
    );
    const stale = Object.entries(UNFACTED_PAGES).flatMap(([file, pages]) =>
      pages.filter((p) => !cited.some((c) => c.file === file && c.page.startsWith(p))).map((p) => `${file}: ${p}`),
    );
    expect(stale).toEqual([]);
  });

  it('every `aws-facts: KEY` citation names a fact of the table', () => {
    const keys = allFacts().map((f) => f.key as string);
    const known = (key: string) =>
      key.endsWith('*') ? keys.some((k) => k.startsWith(key.slice(0, -1))) : keys.includes(key);
    const cited = ALL.flatMap((file) => citedFactKeys(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(cited.length).toBeGreaterThan(10);
    expect(cited.filter(({ key }) => !known(key)).map(({ file, key }) => `${file}: ${key}`)).toEqual([]);
  });
});
