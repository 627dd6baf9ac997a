// npm run bench: every benchmark in turn, figures printed, nothing asserted.
import { engineBench } from './engine.ts';

await engineBench();
