// The run's one cloud assembly (`cdk synth` with bundling takes 15-40 s): the
// first test file that needs it synthesizes it, the others read it. A lock
// directory keeps two files running at once from synthesizing into it together.
import { mkdirSync, rmSync } from 'node:fs';
import { inject } from 'vitest';
import { synthesizeAssembly, type CloudAssembly } from '../../rehearsal/cloud-assembly.ts';

export async function sharedAssembly(): Promise<CloudAssembly> {
  const dir = inject('assemblyDir');
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock); // atomic: only one holder
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await synthesizeAssembly(dir); // reuses the assembly once its manifest exists
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
