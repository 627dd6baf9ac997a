// /play: a person plays a maze in the browser as agent human (viewer/play-sessions.ts), when the viewer was started
// with --play; otherwise the page says how. The only routes of the viewer that write (a run, through the same engine
// as `ariadne play`): POST with a JSON body, refused from any other origin than the viewer's own page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { OBSERVATION_FORMATS } from '../../core/config/experiment-config.ts';
import { GENERATOR_NAMES, MAX_SIZE, MIN_SIZE } from '../../core/maze/generators/index.ts';
import { listSuites } from '../../core/maze/suites.ts';
import { COMMANDS_HELP } from '../../core/providers/human-agent.ts';
import { PLAYER_HELP, PLAYER_PATTERN } from '../../core/providers/human.ts';
import { NotFound, type ViewerContext } from '../context.ts';
import { pageHtml } from '../page-shell.ts';
import { experimentId, int, parseRequest } from '../request-params.ts';

const BODY = `<h1>Play a maze</h1>
<p id="play-off" class="problem" hidden></p>
<form id="start" class="play-start" hidden>
<p>You play as agent <b>human</b>: you are shown exactly what a model is shown in the observation format you choose
(the system prompt, each turn's observation, each move's result), you move with the buttons or the arrow keys, and
the run is recorded with your player id beside the models' and baselines' runs.</p>
<label>player <input name="player" required maxlength="40" autocomplete="nickname"></label>
<label>observation <select name="observation"></select></label>
<fieldset><legend>maze</legend>
<label><input type="radio" name="source" value="generated" checked> generated:</label>
<label>generator <select name="generator"></select></label>
<label>size <input name="size" type="number" min="${MIN_SIZE}" max="${MAX_SIZE}" value="11"></label>
<label>seed <input name="seed" type="number" min="0" value="1"></label>
<br><label><input type="radio" name="source" value="suite"> a suite's maze:</label>
<label>suite <select name="suite"></select></label>
<label>maze <select name="index"></select></label>
</fieldset>
<button id="start-button" type="submit">start</button>
</form>
<section id="game" class="play-game" hidden>
<div class="play-controls">
<p id="play-status" class="play-status" role="status"></p>
<div class="play-pad" id="pad">
<button type="button" data-command="n" title="move north (Up)">&#9650; north</button>
<button type="button" data-command="w" title="move west (Left)">&#9664; west</button>
<button type="button" data-command="e" title="move east (Right)">east &#9654;</button>
<button type="button" data-command="s" title="move south (Down)">&#9660; south</button>
<button type="button" data-command="recall" title="recall_all (r)">recall</button>
<button type="button" data-command="quit" title="give up: the run ends, not solved">give up</button>
</div>
<form id="typed" class="play-typed"><input name="command" maxlength="500" aria-label="a typed command"
 placeholder="or type a command: n the corridor goes on"><button type="submit">send</button></form>
<details><summary>commands</summary><p id="commands-help"></p></details>
</div>
<div id="transcript" class="transcript" aria-live="polite"></div>
</section>`;

const startBody = z
  .object({
    player: z.string().regex(PLAYER_PATTERN, PLAYER_HELP),
    observation: z.enum(OBSERVATION_FORMATS).optional(),
    maze: z.union([
      z
        .object({
          generator: z.enum(GENERATOR_NAMES as [string, ...string[]]),
          size: z.number().int().min(MIN_SIZE).max(MAX_SIZE),
          seed: z.number().int().min(0).max(0xffffffff),
        })
        .strict(),
      z.object({ suite: z.string().min(1).max(100), index: z.number().int().min(0).max(100_000) }).strict(),
    ]),
  })
  .strict();

const moveBody = z.object({ command: z.string().max(500), seen: z.number().int().min(0) }).strict();
const idParams = z.object({ id: experimentId }).strict();
const viewQuery = z.object({ from: int(0, 10_000_000).optional() }).strict();

/** A write sent by a page of another origin (a browser says which in Origin): 403. */
export class ForeignOriginError extends Error {
  override readonly name = 'ForeignOriginError';
}

/** A write from a page of another origin is refused: only the viewer's own page plays (a browser sends Origin). */
function refuseForeignOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    // not a URL: refused below
  }
  if (host !== request.headers.host)
    throw new ForeignOriginError(
      `refused: a page of ${origin.slice(0, 200)} may not play in this viewer; only its own play page does`,
    );
}

export function registerPlayRoutes(app: FastifyInstance, ctx: ViewerContext): void {
  app.get('/play', (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(pageHtml({ title: 'Play', script: 'play.js', body: BODY }, ctx.source)),
  );
  app.get('/api/play/setup', (_request, reply) =>
    reply.send({
      enabled: ctx.play !== undefined,
      generators: GENERATOR_NAMES,
      observations: OBSERVATION_FORMATS,
      help: COMMANDS_HELP,
      suites: listSuites().map(({ ref, suite }) => ({
        ref,
        mazes: suite.mazes.map((m, index) => ({ index, generator: m.generator, size: m.size, seed: m.seed })),
      })),
    }),
  );
  const sessions = () => {
    if (!ctx.play)
      throw new NotFound('playing is off in this viewer: start it with ariadne view --play (on this machine)');
    return ctx.play;
  };
  app.post('/api/play', async (request) => {
    refuseForeignOrigin(request);
    const play = sessions();
    const body = parseRequest(startBody, request.body);
    return play.start({
      player: body.player,
      maze: body.maze,
      config: body.observation ? { observation: body.observation } : {},
    });
  });
  app.get('/api/play/:id', (request, reply) => {
    const { id } = parseRequest(idParams, request.params);
    const { from } = parseRequest(viewQuery, request.query);
    const session = sessions().get(id);
    if (!session) throw new NotFound(`no game ${id} is being played in this viewer`);
    return reply.send(session.view(from ?? 0));
  });
  app.post('/api/play/:id/moves', async (request) => {
    refuseForeignOrigin(request);
    const { id } = parseRequest(idParams, request.params);
    const { command, seen } = parseRequest(moveBody, request.body);
    return sessions().move(id, command, seen);
  });
}
