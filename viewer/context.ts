// What the viewer's server hands every route module, in a module of its own so the routes depend on it and not
// on the server that registers them (the server imports the routes: the arrow runs one way).
import type { Sql } from '../core/store/sql.ts';
import type { LiveFeed } from './live-feed.ts';
import type { PlaySessions } from './play-sessions.ts';

/** What every route module gets. */
export interface ViewerContext {
  db: Sql;
  /** Rows per keyset page of a long read: larger over pg (no response limit), the default over the Data API. */
  pageRows: number | undefined;
  source: string;
  feed: LiveFeed;
  now: () => Date;
  /** The games played here (ariadne view --play); absent: playing is off. */
  play?: PlaySessions;
}

/** A page or asset that does not exist: 404 with the problem page. */
export class NotFound extends Error {
  override readonly name = 'NotFound';
}
