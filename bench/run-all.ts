// npm run bench: every benchmark in turn, figures printed, nothing asserted.
import { engineBench } from './engine.ts';
import { providersBench } from './providers.ts';

await engineBench();
console.log('');
await providersBench();
