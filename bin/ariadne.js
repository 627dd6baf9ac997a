#!/usr/bin/env node
// Installed `ariadne` command: runs the TypeScript CLI through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('./ariadne.ts');
