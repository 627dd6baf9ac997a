// A headless Chromium and `ariadne view`'s server on a test database, for the viewer's page tests; close() ends
// both and drops the database.
import type { Browser } from 'playwright-core';
import { startViewer, type RunningViewer } from '../../viewer/server.ts';
import { launchBrowser } from './browser.ts';
import type { TestDatabase } from './db.ts';

export interface ViewerSession {
  browser: Browser;
  viewer: RunningViewer;
  close: () => Promise<void>;
}

/** At the default poll of `ariadne view` on a local database: live checks hold at what a user gets. */
export async function viewerSession(db: TestDatabase): Promise<ViewerSession> {
  const browser = await launchBrowser();
  const viewer = await startViewer({ db, source: 'test database', pollMs: 1000 });
  return {
    browser,
    viewer,
    close: async () => {
      await viewer.close();
      await browser.close();
      await db.drop();
    },
  };
}
