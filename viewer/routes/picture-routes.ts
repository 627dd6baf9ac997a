// The pictures a run under the image observation format showed its model (results/observation-pictures.ts draws
// them again from the stored state): per turn, each model call's pictures as JSON (where each view was taken and
// whether it hashes to what the call recorded), and each picture as a PNG for the experiment page's <img>.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { experimentRecord } from '../../results/experiment-record.ts';
import { turnPictures, type CallPictures } from '../../results/observation-pictures.ts';
import { ExperimentNotFoundError } from '../../core/errors.ts';
import { NotFound, type ViewerContext } from '../context.ts';
import { experimentId, int, parseRequest } from '../request-params.ts';

const turnParams = z.object({ id: experimentId, turn: int(1, 10_000_000) }).strict();
const pictureParams = z
  .object({ id: experimentId, turn: int(1, 10_000_000), call: int(0, 100_000), index: int(0, 100_000) })
  .strict();

/** Turns whose drawings are kept: a page's picture requests follow its JSON request for the same turn. */
const KEPT_TURNS = 64;

/**
 * The pictures of the turns looked at lately. Drawing one takes ~5 ms, and turnPictures draws all of a turn's: each
 * of a turn's <img> requests drawing the turn again would cost a 64-action turn seconds. The JSON read always draws
 * afresh (so a reloaded page sees the stored state as it is now) and replaces what is kept; the PNGs take what it
 * drew. A promise is kept, so the requests of one page share a drawing still under way.
 */
class KeptPictures {
  private readonly entries = new Map<string, Promise<CallPictures[] | null>>();

  read(ctx: ViewerContext, id: string, turn: number, fresh: boolean): Promise<CallPictures[] | null> {
    const key = `${id}/${turn}`;
    const kept = fresh ? undefined : this.entries.get(key);
    if (kept) {
      // most recently used last
      this.entries.delete(key);
      this.entries.set(key, kept);
      return kept;
    }
    const drawn = turnPictures(ctx.db, id, turn);
    this.entries.delete(key);
    this.entries.set(key, drawn);
    for (const old of this.entries.keys()) {
      if (this.entries.size <= KEPT_TURNS) break;
      this.entries.delete(old);
    }
    // a failure, a run without pictures or a turn not written yet is read again next time
    const forget = () => this.entries.get(key) === drawn && this.entries.delete(key);
    void drawn.then((calls) => (calls === null || calls.length === 0) && forget(), forget);
    return drawn;
  }
}

/** The turn's calls with their pictures; NotFound when the run shows none or the turn has no model call. */
async function calledPictures(ctx: ViewerContext, kept: KeptPictures, id: string, turn: number, fresh: boolean) {
  const calls = await kept.read(ctx, id, turn, fresh);
  if (calls === null) {
    if (!(await experimentRecord(ctx.db, id))) throw new ExperimentNotFoundError(id);
    throw new NotFound(`experiment ${id} showed its model no pictures: its observation format is not image`);
  }
  if (calls.length === 0) throw new NotFound(`turn ${turn} of experiment ${id} has no model call recorded`);
  return calls;
}

const pngPath = (id: string, turn: number, call: number, index: number) =>
  `/api/experiments/${encodeURIComponent(id)}/turns/${turn}/pictures/${call}/${index}.png`;

export function registerPictureRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  const kept = new KeptPictures();

  app.get('/api/experiments/:id/turns/:turn/pictures', async (request) => {
    const { id, turn } = parseRequest(turnParams, request.params);
    const calls = await calledPictures(ctx, kept, id, turn, true);
    return {
      turn,
      calls: calls.map((c) => ({
        call: c.call,
        pictures: c.pictures.map((p, index) => ({
          index,
          step: p.step,
          x: p.x,
          y: p.y,
          recorded: p.recorded,
          drawn: p.image.sha256,
          matches: p.matches,
          width: p.image.width,
          height: p.image.height,
          src: pngPath(id, turn, c.call, index),
        })),
        unexplained: c.unexplained,
      })),
    };
  });

  app.get('/api/experiments/:id/turns/:turn/pictures/:call/:index.png', async (request, reply) => {
    const { id, turn, call, index } = parseRequest(pictureParams, request.params);
    const calls = await calledPictures(ctx, kept, id, turn, false);
    const c = calls.find((k) => k.call === call);
    if (!c) throw new NotFound(`turn ${turn} of experiment ${id} has no model call ${call}`);
    const picture = c.pictures[index];
    if (!picture)
      throw new NotFound(`model call ${call} of turn ${turn} first sent ${c.pictures.length} picture(s): no ${index}`);
    // the stored state of a written turn does not change: the same URL, the same picture, named by its pixels' hash
    const { png, sha256 } = picture.image;
    const etag = `"${sha256}"`;
    reply.header('etag', etag).header('cache-control', 'private, max-age=31536000, immutable');
    if (request.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) return reply.code(304).send();
    return reply.type('image/png').send(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  });
}
