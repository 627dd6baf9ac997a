// Scenarios of the model providers: an Ollama server and an OpenAI-compatible one (its key a SecureString) a
// Lambda can reach, and a Bedrock that stops answering in time, once and then for good.
import { experiment, runExperimentMachine, toGoal, type Scenario } from './run-experiment.ts';
import { FUNCTION_TIMEOUT_ERRORS, PROVIDER_RETRY, STATES } from '../core/machine/states.ts';
import { REHEARSAL_OPENAI_KEY } from './world.ts';
import { turnPictures } from '../results/observation-pictures.ts';

/** The Retry waits of the provider Tasks, shortened (PROVIDER_RETRY waits 30 s, then 60 s, on AWS). */
const SHORT_RETRIES = { [STATES.InvokeBedrockAgent]: 50, [STATES.InvokeOllamaAgent]: 50 };
const SECRET_KEY_PARAMETER = '/ariadne-secrets/openai_api_key';
/** The outage's wait, shortened (15 s on AWS for the first). */
const SHORT_WAITS = { [STATES.OutageWait]: 50 };

/** A Converse content block, as far as the image scenario reads it. */
type Block = { image?: unknown };

interface LlmCallRow {
  retries: Array<{ status: string | number }>;
}

export const PROVIDER_SCENARIOS: Record<string, Scenario> = {
  async ollama(world) {
    // StartExperiment refuses a loopback host inside Lambda (the function itself): the server listens on an
    // address of this machine that is not loopback, as a researcher's Ollama host would be.
    if (!world.ollamaUrl)
      throw new Error('this machine has no network address but loopback, which a Lambda cannot use for Ollama');
    const model = world.sims.ollama.models[0];
    const before = world.sims.ollama.requests.length;
    const row = await experiment(world, 'ollama', {
      agent: 'ollama',
      model,
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200, ollama: { host: world.ollamaUrl } },
    });
    toGoal(row);
    const chats = world.sims.ollama.requests.slice(before).filter((r) => r.path === '/api/chat').length;
    if (chats === 0) throw new Error('the Ollama server saw no /api/chat request');
    return `Ollama agent (${model} at ${world.ollamaUrl}) to the goal in ${row.actions_taken} actions, ${chats} chats`;
  },
  async openai(world) {
    // The key as `ariadne secret set` stores it: a SecureString beside the settings (CloudFormation cannot make one);
    // the turn function reads it with GetParameter and decryption, through its own grant, and the server refuses
    // any other key (401), so a run that reaches the goal proves the secret came through.
    if (!world.openaiUrl)
      throw new Error('this machine has no network address but loopback, which a Lambda cannot use for a model server');
    const sim = world.sims.openai;
    const { ssm } = world.sims;
    ssm.parameters = [
      ...ssm.parameters.filter((p) => p.name !== SECRET_KEY_PARAMETER),
      { name: SECRET_KEY_PARAMETER, value: REHEARSAL_OPENAI_KEY, type: 'SecureString' },
    ];
    const model = sim.models[0];
    const before = { requests: sim.requests.length, replies: sim.replies.length };
    const row = await experiment(world, 'openai', {
      agent: 'openai',
      model,
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200, openai: { base_url: world.openaiUrl, stream: true } },
    });
    toGoal(row);
    const chats = sim.requests.slice(before.requests).filter((r) => r.path === '/v1/chat/completions');
    if (chats.length === 0) throw new Error('the OpenAI-compatible server saw no /v1/chat/completions request');
    const keys = new Set(chats.map((r) => r.headers.authorization));
    if (keys.size !== 1 || !keys.has(`Bearer ${REHEARSAL_OPENAI_KEY}`))
      throw new Error(`the turns sent ${[...keys].join(', ')}, not the SecureString's key`);
    // tokens as the wire said: the stream's usage chunk, summed over the run, against what the server sent
    const replies = sim.replies.slice(before.replies);
    const sent = replies.reduce((n, r) => n + r.inputTokens + r.outputTokens + (r.cacheReadInputTokens ?? 0), 0);
    const { rows } = await world.db.pool.query<{ tokens: string; calls: string }>(
      `SELECT sum(input_tokens + output_tokens + coalesce(cache_read_input_tokens, 0)) AS tokens, count(*) AS calls
       FROM llm_calls WHERE experiment_id = $1`,
      [row.id],
    );
    if (Number(rows[0].tokens) !== sent || Number(rows[0].calls) !== replies.length)
      throw new Error(
        `experiment ${row.id} recorded ${rows[0].calls} calls and ${rows[0].tokens} tokens; the server sent ` +
          `${replies.length} replies and ${sent} tokens`,
      );
    return (
      `OpenAI-compatible agent (${model} at ${world.openaiUrl}, streamed, key from a SecureString) to the goal in ` +
      `${row.actions_taken} actions, ${chats.length} chat completions, ${sent} tokens as the server counted them`
    );
  },
  async fork(world) {
    // StartExperiment takes a parent and a step: the fork's first turns are answered from the parent's record,
    // read by the turn function through the Data API; then its own model. Its steps up to the fork point are the
    // parent's, and a fork on another maze is refused before anything is written.
    if (!world.ollamaUrl)
      throw new Error('this machine has no network address but loopback, which a Lambda cannot use for Ollama');
    const request = {
      agent: 'ollama',
      model: world.sims.ollama.models[0],
      maze: { generator: 'perfect', size: 21, seed: 5 },
      config: { max_moves: 60, ollama: { host: world.ollamaUrl } },
    };
    const parent = await experiment(world, 'fork-parent', request);
    const atStep = Math.min(20, parent.actions_taken - 1);
    const fork = await experiment(world, 'fork', { ...request, fork: { parent: parent.id, atStep } });
    if (fork.status === 'failed') throw new Error(`the fork ${fork.id} failed: ${fork.failure_reason ?? '-'}`);
    const steps = async (id: string) =>
      JSON.stringify(
        (
          await world.db.pool.query(
            `SELECT step_number, tool, outcome, to_x, to_y FROM actions WHERE experiment_id = $1 AND step_number <= $2
             ORDER BY step_number`,
            [id, atStep],
          )
        ).rows,
      );
    if ((await steps(fork.id)) !== (await steps(parent.id)))
      throw new Error(`the fork ${fork.id}'s first ${atStep} steps are not ${parent.id}'s`);
    const { rows } = await world.db.pool.query<{ forked_from: string; fork_step: number; replayed: number }>(
      `SELECT forked_from, fork_step, (SELECT count(*)::int FROM model_exchanges x
         WHERE x.experiment_id = e.id AND x.answered_by = 'replay') AS replayed
       FROM experiments e WHERE e.id = $1`,
      [fork.id],
    );
    if (rows[0]?.forked_from !== parent.id || rows[0].fork_step !== atStep || rows[0].replayed === 0)
      throw new Error(`the fork ${fork.id} is not linked to ${parent.id} at ${atStep}: ${JSON.stringify(rows[0])}`);
    const name = `rehearsal-fork-elsewhere-${parent.id.slice(-6)}`;
    const elsewhere = { ...request, maze: { ...request.maze, seed: 6 }, fork: { parent: parent.id, atStep } };
    const refusal = await runExperimentMachine(world, { ...elsewhere, experimentId: name }, name).then(
      () => null,
      (err: Error) => err,
    );
    const written = await world.db.pool.query('SELECT 1 FROM experiments WHERE id = $1', [name]);
    if (!/parent's maze/.test(String(refusal)) || written.rowCount !== 0)
      throw new Error(`a fork on another maze was not refused at start: ${String(refusal)}`);
    return (
      `fork of ${parent.id} after step ${atStep} started by StartExecution: the parent's steps, ` +
      `${rows[0].replayed} calls answered from its record, ${fork.actions_taken - atStep} steps of its own; ` +
      'a fork on another maze refused at start'
    );
  },
  async image(world) {
    // The image observation format on AWS: Converse image blocks from the Bedrock function (IAM-checked like every
    // call), each call's picture hashes written through the Data API, and every picture drawn again from the stored
    // vision hashing as recorded.
    const bedrock = world.sims.bedrock;
    const before = bedrock.requests.length;
    const row = await experiment(world, 'image', {
      agent: 'bedrock',
      model: bedrock.models[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      config: { max_moves: 200, observation: 'image' },
    });
    toGoal(row);
    const images = bedrock.requests
      .slice(before)
      .flatMap((r) => ((r.body as { messages?: unknown } | null)?.messages ?? []) as Array<{ content: Block[] }>)
      .flatMap((m) => m.content)
      .filter((b) => b.image).length;
    if (images === 0) throw new Error('no Converse request carried an image block');
    const { rows } = await world.db.pool.query<{ n: number }>(
      'SELECT max(turn_number)::int AS n FROM turns WHERE experiment_id = $1',
      [row.id],
    );
    let drawn = 0;
    for (let turn = 1; turn <= rows[0].n; turn++)
      for (const call of (await turnPictures(world.db.pool, row.id, turn)) ?? []) {
        const wrong = call.pictures.filter((p) => !p.matches);
        if (wrong.length > 0 || call.unexplained.length > 0)
          throw new Error(`experiment ${row.id} turn ${turn} call ${call.call}: a picture does not match its hash`);
        drawn += call.pictures.length;
      }
    if (drawn === 0) throw new Error(`experiment ${row.id} recorded no picture`);
    return (
      `Bedrock agent on pictures to the goal in ${row.actions_taken} actions: ${images} image blocks sent, ` +
      `${drawn} pictures drawn again from the stored vision, each hashing as its call recorded`
    );
  },
  async 'provider-timeout'(world) {
    const bedrock = world.sims.bedrock;
    const request = (timeoutMs: number) => ({
      agent: 'bedrock',
      model: bedrock.models[0],
      maze: { generator: 'medium', size: 9, seed: 3 },
      // half a minute of outage waits: one wait (15 s), then the next (30 s) would pass it
      config: {
        max_moves: 200,
        retry: { timeout_ms: timeoutMs, max_attempts: 2, base_delay_ms: 10 },
        provider_outage_wait_minutes: 0.5,
      },
    });
    try {
      // Once: the first model call outlives its timeout, the retry answers, the experiment goes on.
      bedrock.faults = [{ kind: 'slow', ms: 2_000 }];
      const once = await experiment(world, 'slow-once', request(500));
      toGoal(once);
      const { rows } = await world.db.pool.query<LlmCallRow>(
        'SELECT retries FROM llm_calls WHERE experiment_id = $1 ORDER BY turn_number, call_index',
        [once.id],
      );
      if (!rows.some((r) => r.retries.some((x) => x.status === 'timeout')))
        throw new Error(`experiment ${once.id}: no model call recorded a retry after a timeout`);
      // For good: every attempt times out; the turn fails with ProviderTransientError, the state machine retries
      // the Task (PROVIDER_RETRY); the outage is waited out once (OutageWait), the turn tried again, and then
      // FinalizeFailure marks the experiment failed with the reason and what was waited.
      bedrock.faults = [];
      bedrock.always = { kind: 'slow', ms: 2_000 };
      const sent = bedrock.requests.length;
      const never = await experiment(world, 'slow-always', request(300), SHORT_RETRIES, undefined, SHORT_WAITS);
      if (
        never.status !== 'failed' ||
        !never.failure_reason?.startsWith('ProviderTransientError: the provider stayed unavailable, after 1 wait(s)')
      )
        throw new Error(
          `experiment ${never.id} ended ${never.status} (${never.failure_reason ?? 'no reason'}), ` +
            'expected failed with ProviderTransientError after one outage wait',
        );
      if (FUNCTION_TIMEOUT_ERRORS.includes(never.error?.name ?? ''))
        throw new Error('the Lambda timed out before the provider did');
      // each Task attempt tries the model max_attempts (2) times; the definition's Retry adds its attempts; the
      // turn is tried twice (before and after its wait)
      const expected = 2 * (1 + PROVIDER_RETRY.maxAttempts) * 2;
      if (bedrock.requests.length - sent !== expected)
        throw new Error(
          `${bedrock.requests.length - sent} model calls, expected ${expected} (Task Retry not applied?)`,
        );
      return (
        `a timed-out model call retried and the experiment reached the goal in ${once.actions_taken} actions; ` +
        `a model that never answers in time: one outage wait, then failed with ProviderTransientError ` +
        `(${expected} calls: the turn tried twice, its Task retried ${PROVIDER_RETRY.maxAttempts} times each, waits ` +
        'shortened to 50 ms)'
      );
    } finally {
      bedrock.faults = [];
      bedrock.always = undefined;
    }
  },
};
