// The facts table (aws-facts/facts.ts): every fact tied to AWS's page and sentence, and each either enforced by a
// simulator (a fact('key') in simulators/*.ts or rehearsal/*.ts, found statically) or saying why none does; and
// docs/aws-facts.md as `npm run docs` writes it now.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allFacts, fact } from '../aws-facts/facts.ts';
import { AWS_FACTS_PAGE_PATH, awsFactsPage, factEnforcers } from '../bin/docs/aws-facts-page.ts';

const ROOT = join(import.meta.dirname, '..');
const facts = allFacts();
const enforcers = factEnforcers();

describe('the AWS facts table', () => {
  it('has stable, unique keys of the form service.name', () => {
    const keys = facts.map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(/^[a-z][a-z0-9-]*\.[a-z0-9-]+$/);
  });

  it('ties every fact to an AWS documentation or pricing page and a sentence, or says why it is unconfirmed', () => {
    for (const f of facts) {
      // AWS's documentation, or a service's own pricing page (how AWS bills is said only there)
      expect(f.page, f.key).toMatch(
        /^https:\/\/(docs\.aws\.amazon\.com\/\S+|aws\.amazon\.com\/[a-z0-9-]+\/pricing\/)$/,
      );
      expect(f.quote.trim(), f.key).not.toBe('');
      if (f.confirmed === false) expect(f.note?.trim(), `${f.key}: an unconfirmed fact says who gives it`).toBeTruthy();
    }
  });

  it('has every fact enforced by a simulator, or a reason none does (and none for one that is enforced)', () => {
    for (const f of facts) {
      const by = enforcers.get(f.key) ?? [];
      if (by.length) expect(f.notSimulated, `${f.key} is read by ${by.join(', ')}`).toBeUndefined();
      else expect(f.notSimulated?.trim(), `${f.key}: no simulator reads it; give notSimulated`).toBeTruthy();
    }
    const missing = facts.filter((f) => !enforcers.get(f.key)?.length);
    console.log(
      `AWS facts no simulator enforces (${missing.length}):\n` +
        missing.map((f) => `  ${f.key}: ${f.notSimulated}`).join('\n'),
    );
    // the simulators read the facts they were written around
    expect(enforcers.get('data-api.max-row-bytes')).toContain('simulators/rds-data-sim.ts');
    expect(enforcers.get('bedrock.prompt-cache-models')).toContain('simulators/bedrock-prompt-cache.ts');
  });

  it('counts only known keys: a fact() of a key not in the table fails typecheck, and finds none here', () => {
    expect([...enforcers.keys()].sort()).toEqual(facts.map((f) => f.key).sort());
    expect(fact('sfn.max-payload-bytes').value).toBe(262_144);
  });

  it('keeps the Bedrock simulator off the project code it checks', () => {
    const sim = readFileSync(join(ROOT, 'simulators', 'bedrock-prompt-cache.ts'), 'utf8');
    expect(sim).not.toMatch(/from '\.\.\/core\//);
  });

  it('is committed as docs/aws-facts.md as the script writes it now (run `npm run docs` after changing it)', () => {
    expect(readFileSync(join(ROOT, AWS_FACTS_PAGE_PATH), 'utf8')).toBe(awsFactsPage());
  });
});
