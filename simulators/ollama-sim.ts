// A local server speaking Ollama's HTTP API (POST /api/chat plain and streamed as NDJSON, GET /api/tags, POST
// /api/show, GET /api/version) with a simulated model that plays, in Ollama's documented shapes
// (https://docs.ollama.com/api/chat, .../capabilities/thinking, .../api-reference/show-model-details): tool calls with
// object arguments, prompt_eval_count / eval_count, nanosecond durations, `think`, done_reason "length" under
// num_predict, and digests from /api/tags only.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { cutAtCap, SimServer, type Fault, type LoggedRequest, type SimOptions } from './sim-server.ts';
import { tokensOf } from './sim-player.ts';
import { pictureBytes, withPicturesRead } from './picture-reader.ts';

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
};

export interface OllamaSimOptions extends SimOptions {
  /** Models /api/show lists without the "vision" capability, as a text-only model (qwen2.5) is on a real server. */
  textOnly?: string[];
}

export class OllamaSim extends SimServer {
  protected readonly simulatorName = 'ollama';
  /** The simulated player reads pictures (picture-reader.ts), so every other model says "vision", truthfully. */
  readonly textOnly: string[];
  constructor(opts: OllamaSimOptions = {}) {
    super(opts);
    this.textOnly = opts.textOnly ?? [];
  }
  protected defaultModels() {
    return ['qwen2.5:7b', 'llama3.1:8b', 'llama3.2:3b'];
  }

  protected async handle(req: LoggedRequest, res: ServerResponse): Promise<void> {
    if (req.method === 'GET' && req.path === '/api/version') return json(res, 200, { version: SIMULATED_VERSION });
    if (req.method === 'GET' && req.path === '/api/tags') {
      return json(res, 200, {
        models: this.models.map((name) => ({
          name,
          model: name,
          modified_at: new Date(0).toISOString(),
          size: 0,
          digest: digestOf(name),
          details: {
            parent_model: '',
            ...SIMULATED_DETAILS,
          },
        })),
      });
    }
    if (req.method === 'POST' && req.path === '/api/show') {
      const model = req.body?.model ?? req.body?.name;
      if (!this.models.includes(model)) return json(res, 404, { error: `model '${model}' not found` });
      return json(res, 200, {
        modelfile: `FROM ${model}`,
        parameters: 'num_ctx 32768\nstop "<|im_end|>"',
        template: `{{- range .Messages }}<|im_start|>{{ .Role }}\n{{ .Content }}<|im_end|>{{ end }} (${model})`,
        modified_at: new Date(0).toISOString(),
        details: {
          parent_model: '',
          ...SIMULATED_DETAILS,
        },
        model_info: { 'general.architecture': 'sim' },
        capabilities: ['completion', 'tools', ...(this.textOnly.includes(model) ? [] : ['vision'])],
      });
    }
    if (req.method === 'POST' && req.path === '/api/chat') return this.chat(req, res);
    return json(res, 404, { error: `no route ${req.method} ${req.path}` });
  }

  /** /api/chat: parse -> validate (the model, the rate limits, faults) -> answer -> write. */
  private async chat(req: LoggedRequest, res: ServerResponse): Promise<void> {
    const body = req.body ?? {};
    const model: string = body.model;
    if (!this.models.includes(model))
      return json(res, 404, { error: `model '${model}' not found, try pulling it first` });
    const messages: Array<{ role: string; content: string }> = body.messages ?? [];
    const requestTokens = tokensOf(JSON.stringify(messages) + JSON.stringify(body.tools ?? []));
    const admitted = this.admit(model, requestTokens);
    // What hosted Ollama (ollama.com) answers past a limit: 429 with the reason in `error`.
    if (typeof admitted === 'string')
      return json(res, 429, { error: `too many ${admitted} for model '${model}', please retry` });
    const fault = this.faultFor(body);
    if (!(await this.transport(fault, res))) return;
    if (fault?.kind === 'status')
      return json(res, fault.status, {
        error:
          fault.status === 429
            ? 'too many requests, please retry'
            : 'llama runner process has terminated: exit status 2',
      });
    const reply = this.answer(model, body, fault);
    // Like Ollama, a prompt longer than options.num_ctx is cut silently and counted as what was kept.
    const numCtx: number = body.options?.num_ctx ?? 2048;
    const promptTokens = Math.min(
      numCtx,
      this.promptTokens(JSON.stringify(messages) + JSON.stringify(body.tools ?? [])),
    );
    admitted.tokens += reply.evalTokens;
    this.replies.push({ model, inputTokens: promptTokens, outputTokens: reply.evalTokens, fault: reply.fault });
    this.writeChat(res, model, body.stream !== false, reply, promptTokens);
  }

  /** The model's reply: thinking when asked, the planned text and tool calls, cut at options.num_predict. */
  private answer(model: string, body: any, fault: Fault | null): OllamaReply {
    const messages: Array<{ role: string; content: string }> = body.messages ?? [];
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n');
    // a vision model reads a message's pictures (its `images`, base64) with its text
    const texts = messages
      .filter((m) => m.role === 'user' || m.role === 'tool')
      .map((m) => withPicturesRead(m.content, ((m as { images?: string[] }).images ?? []).map(pictureBytes)));
    const turn = {
      model,
      system,
      texts,
      tools: (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name),
      requestChars: JSON.stringify(body).length,
    };
    const planned = this.plan(turn, fault);
    const toolCalls = planned.calls.map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
    // think: true or a level asks for the reasoning apart; false or absent, none (the sim thinks only when asked)
    const thinking = body.think !== undefined && body.think !== false ? this.thinkingFor(turn) : '';
    const text = planned.text;
    // options.num_predict caps what is generated, thinking first
    const cut = cutAtCap(
      { reasoning: thinking, text, calls: toolCalls, tokens: tokensOf(thinking + text + JSON.stringify(toolCalls)) },
      body.options?.num_predict,
    );
    return {
      thinking: cut.reasoning,
      text: cut.text,
      toolCalls: cut.calls,
      truncated: cut.truncated,
      evalTokens: cut.tokens,
      fault: planned.fault,
    };
  }

  /** The reply, whole or (Ollama's default) streamed as NDJSON, with plausible durations and counts. */
  private writeChat(res: ServerResponse, model: string, stream: boolean, reply: OllamaReply, promptTokens: number) {
    const { thinking, text, toolCalls, evalTokens } = reply;
    // Plausible durations (ns) for a 7B model on a laptop GPU: prompt at ~1,000 tokens/s, generation at ~40.
    const promptEvalNs = promptTokens * 1_000_000;
    const evalNs = evalTokens * 25_000_000;
    const loadNs = 20_000_000;
    const final = {
      model,
      created_at: new Date().toISOString(),
      done: true,
      done_reason: reply.truncated ? 'length' : 'stop',
      total_duration: loadNs + promptEvalNs + evalNs + 5_000_000,
      load_duration: loadNs,
      prompt_eval_count: promptTokens,
      prompt_eval_duration: promptEvalNs,
      eval_count: evalTokens,
      eval_duration: evalNs,
    };
    const message = {
      role: 'assistant',
      content: text,
      ...(thinking ? { thinking } : {}),
      ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    };
    if (!stream) return json(res, 200, { ...final, message });
    // Streaming (Ollama's default): NDJSON chunks, text in pieces, tool calls in one chunk, counts on the last.
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const created = new Date().toISOString();
    // thinking streams before the answer (https://docs.ollama.com/capabilities/thinking)
    for (const piece of thinking.match(/.{1,16}/gs) ?? [])
      res.write(
        `${JSON.stringify({
          model,
          created_at: created,
          message: { role: 'assistant', content: '', thinking: piece },
          done: false,
        })}\n`,
      );
    for (const piece of text.match(/.{1,16}/gs) ?? []) {
      res.write(
        `${JSON.stringify({
          model,
          created_at: created,
          message: { role: 'assistant', content: piece },
          done: false,
        })}\n`,
      );
    }
    if (toolCalls.length > 0)
      res.write(
        `${JSON.stringify({
          model,
          created_at: created,
          message: { role: 'assistant', content: '', tool_calls: toolCalls },
          done: false,
        })}\n`,
      );
    res.end(`${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`);
  }
}

/** An Ollama chat reply as answered, before it is written. */
interface OllamaReply {
  thinking: string;
  text: string;
  toolCalls: Array<{ function: { name: string; arguments: unknown } }>;
  truncated: boolean;
  evalTokens: number;
  fault: Fault['kind'] | null;
}

/**
 * A model's digest as /api/tags reports it: here "simulated-" and a sha256 of the name (each model has its own, and
 * none can pass for a real model's).
 */
export function digestOf(model: string): string {
  return `simulated-${createHash('sha256').update(`sim:${model}`).digest('hex')}`;
}

/** What the simulated models are, as /api/tags and /api/show give details: simulated, nothing that looks real. */
const SIMULATED_DETAILS = {
  format: 'simulated',
  family: 'sim',
  families: ['sim'],
  parameter_size: 'simulated',
  quantization_level: 'simulated',
};

/** The server version /api/version gives: the simulator's, never an Ollama release's. */
export const SIMULATED_VERSION = '0.0.0-simulated';
