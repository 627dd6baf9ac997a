import type { FastifyInstance } from 'fastify';
import type { ViewerContext } from '../server.ts';

export function registerSearchRoutes(_app: FastifyInstance, _ctx: ViewerContext): void {}
