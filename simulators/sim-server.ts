// What both simulators share: an HTTP server on loopback, a log of every
// request, and scripted misbehaviour. Faults are taken one per model request
// from `faults` (in order), then `always` applies (if set).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttp2Server, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { SimPlayer, tokensOf } from './sim-player.ts';
import { SIMULATOR_HEADER } from '../core/providers/llm/chat-model.ts';
import { BELIEF_PROBE_MARK } from '../core/engine/belief-probe.ts';

export type Fault =
  | { kind: 'status'; status: number } // 429, 500, 503...: an error reply in the service's format
  | { kind: 'reset' } // the connection is dropped without a reply
  | { kind: 'slow'; ms: number } // the reply comes after ms
  | { kind: 'malformed' } // an unknown tool and a call whose arguments fail the schema
  | { kind: 'text-embedded' } // the tool call written as JSON in the text, not as a tool call
  | { kind: 'text-only' } // a sentence and no tool call
  | { kind: 'empty' } // nothing at all
  | { kind: 'script'; calls: string[] } // exactly these tool calls (e.g. a move into a wall, three times)
  | { kind: 'say'; text: string }; // exactly this text, no tool call (e.g. a workflow's choice)

/**
 * A service's rate limit on one model, as providers count it: over a sliding window (60 s; tests scale it down,
 * and config.rate_limits must then give the same window_seconds).
 */
export interface SimRateLimit {
  requests_per_minute?: number;
  tokens_per_minute?: number;
  window_seconds?: number;
}

/** A model request the limit let through (with the tokens it used, once replied), or one it refused. */
export interface LimitedRequest {
  model: string;
  at: number;
  tokens: number;
}

export interface SimOptions {
  models?: string[];
  /** Per model; a model without one is not limited. */
  limits?: Record<string, SimRateLimit>;
  faults?: Fault[];
  always?: Fault;
  /**
   * Faults for belief probes (core/engine/belief-probe.ts), one per probe request, in order; apart from `faults`, so
   * that a run's turns meet the same faults with probes as without. Their `say`, `empty`, `text-only` and
   * `malformed` answer a probe in words; with none, a probe is answered with the map the model has been shown.
   */
  probeFaults?: Fault[];
  /**
   * The share of the cells it was shown that the simulated model remembers wrong in a probe's map (a wall as open
   * and open ground as a wall), the same cells every time; default 0: it remembers every one.
   */
  beliefNoise?: number;
  callsPerReply?: number;
  port?: number;
  /**
   * Prompt tokens per token of the chars/4 count the simulators use: a model whose tokenizer splits this text
   * finer (an ASCII map) than Ariadne's estimate assumes. Tests of the calibration set it; default 1.
   */
  tokenScale?: number;
  /**
   * Whether every reply names the simulator (the x-ariadne-simulator header, read by the model adapters): default
   * true. Only tests turn it off, to stand in for a real server that speaks the same wire format.
   */
  announce?: boolean;
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}
export interface SentReply {
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  /** The part of outputTokens spent reasoning, where the wire reports it apart (OpenAI's reasoning_tokens). */
  reasoningTokens?: number;
  /** Image parts the request carried (OpenAI's image_url parts). */
  images?: number;
  fault: Fault['kind'] | null;
}

export interface ModelTurn {
  model: string;
  system: string;
  texts: string[];
  /** Tool names the request offers; none means the model can only answer in text. */
  tools: string[];
  requestChars: number;
}

export interface PlannedReply {
  text: string;
  calls: Array<{ name: string; arguments: unknown }>;
  fault: Fault['kind'] | null;
}

export abstract class SimServer {
  readonly requests: LoggedRequest[] = [];
  readonly replies: SentReply[] = [];
  /** Model requests each limit let through, and those it refused (answered 429 / ThrottlingException). */
  readonly admitted: LimitedRequest[] = [];
  readonly throttled: Array<LimitedRequest & { reason: 'requests' | 'tokens' }> = [];
  limits: Record<string, SimRateLimit>;
  readonly models: string[];
  faults: Fault[];
  always: Fault | undefined;
  probeFaults: Fault[];
  beliefNoise: number;
  protected readonly player = new SimPlayer();
  protected readonly callsPerReply: number;
  tokenScale: number;
  private server: {
    listen: (port: number, host: string, onListening: () => void) => unknown;
    close: (cb: () => void) => void;
    address: () => unknown;
    once: (event: 'error', listener: (err: Error) => void) => unknown;
    off: (event: 'error', listener: (err: Error) => void) => unknown;
  } | null = null;
  private closeConnections: () => void = () => undefined;
  /** HTTP/2 (cleartext, prior knowledge) instead of HTTP/1.1: what the Bedrock Runtime client speaks by default. */
  protected readonly http2: boolean = false;
  /** What the simulator calls itself on every reply (SIMULATOR_HEADER): the provider it stands in for. */
  protected abstract readonly simulatorName: string;
  /** SimOptions.announce; a test may turn it off between runs (the same server, now passing for a real one). */
  announce: boolean;

  constructor(opts: SimOptions = {}) {
    this.models = opts.models ?? this.defaultModels();
    this.limits = { ...(opts.limits ?? {}) };
    this.faults = [...(opts.faults ?? [])];
    this.always = opts.always;
    this.probeFaults = [...(opts.probeFaults ?? [])];
    this.beliefNoise = opts.beliefNoise ?? 0;
    this.callsPerReply = opts.callsPerReply ?? 2;
    this.tokenScale = opts.tokenScale ?? 1;
    this.announce = opts.announce ?? true;
  }

  /** Names the simulator on a reply not yet sent, unless announcing is off (the headers written later keep it). */
  protected announceOn(res: { setHeader(name: string, value: string): unknown }): void {
    if (this.announce) res.setHeader(SIMULATOR_HEADER, this.simulatorName);
  }

  /** A prompt's tokens as this simulated model counts them (tokenScale). */
  protected promptTokens(text: string): number {
    return Math.max(1, Math.round(tokensOf(text) * this.tokenScale));
  }

  /** What the simulated model thinks before it answers, when asked to (Ollama think, Bedrock thinking). */
  protected thinkingFor(turn: ModelTurn): string {
    return `Position and view read; ${turn.tools.length} tools offered. I will head for the nearest unexplored tiles.`;
  }

  protected abstract defaultModels(): string[];
  protected abstract handle(req: LoggedRequest, res: ServerResponse): Promise<void>;

  /** `host`: the address to listen on (default loopback; the rehearsal's Lambdas need one that is not). */
  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          /* keep text */
        }
        const logged = {
          method: req.method ?? 'GET',
          path: decodeURIComponent((req.url ?? '/').split('?')[0]),
          headers: req.headers,
          body,
        };
        this.requests.push(logged);
        this.announceOn(res);
        this.handle(logged, res).catch((err) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: String(err) }));
        });
      });
    };
    if (this.http2) {
      const server = createHttp2Server(onRequest as never);
      const sessions = new Set<Http2Session>();
      server.on('session', (s) => {
        sessions.add(s);
        s.on('close', () => sessions.delete(s));
      });
      this.closeConnections = () => {
        for (const s of sessions) s.destroy();
      };
      this.server = server;
    } else {
      const server = createServer(onRequest);
      this.closeConnections = () => server.closeAllConnections();
      this.server = server;
    }
    // a busy port (EADDRINUSE) or a refused address rejects, so the caller can say which option to change
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, host, () => {
        this.server!.off('error', reject);
        resolve();
      });
    });
    const url = new URL('http://localhost');
    url.hostname = host.includes(':') ? `[${host}]` : host;
    url.port = String((this.server.address() as AddressInfo).port);
    return url.origin;
  }

  async close(): Promise<void> {
    this.closeConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /**
   * Counts a model request against its model's limit: the admitted entry (add the output tokens to it once
   * known), or which limit refused it. Tokens are counted as used when the request came, as services do.
   */
  protected admit(model: string, inputTokens: number): LimitedRequest | 'requests' | 'tokens' {
    const now = Date.now();
    const limit = this.limits[model];
    if (limit) {
      const since = now - (limit.window_seconds ?? 60) * 1000;
      const recent = this.admitted.filter((r) => r.model === model && r.at > since);
      const reason =
        limit.requests_per_minute !== undefined && recent.length + 1 > limit.requests_per_minute
          ? 'requests'
          : limit.tokens_per_minute !== undefined &&
              recent.reduce((n, r) => n + r.tokens, 0) + inputTokens > limit.tokens_per_minute
            ? 'tokens'
            : null;
      if (reason) {
        this.throttled.push({ model, at: now, tokens: inputTokens, reason });
        return reason;
      }
    }
    const entry = { model, at: now, tokens: inputTokens };
    this.admitted.push(entry);
    return entry;
  }

  /** The next fault for a model request, if any. */
  protected nextFault(): Fault | null {
    return this.faults.shift() ?? this.always ?? null;
  }

  /** The fault for a request's body: a belief probe's from probeFaults (none past them), a turn's from nextFault. */
  protected faultFor(body: unknown): Fault | null {
    return JSON.stringify(body ?? null).includes(BELIEF_PROBE_MARK)
      ? (this.probeFaults.shift() ?? null)
      : this.nextFault();
  }

  /** Applies transport faults (reset, slow); returns false when the reply must not be sent. */
  protected async transport(fault: Fault | null, res: ServerResponse): Promise<boolean> {
    if (fault?.kind === 'reset') {
      const stream = (res as unknown as { stream?: { close: (code: number) => void } }).stream;
      if (stream)
        stream.close(2); // HTTP/2: reset the stream with INTERNAL_ERROR
      else res.socket?.destroy();
      return false;
    }
    if (fault?.kind === 'slow') await new Promise((r) => setTimeout(r, fault.ms));
    return true;
  }

  /**
   * A belief probe's answer: the map the simulated model believes (what it was shown, its memory of earlier turns
   * included, beliefNoise of it remembered wrong) and where it is; or the words a probe fault gives. It learns
   * nothing from the probe: its next turns are what they would be without it.
   */
  protected probeAnswer(turn: ModelTurn, fault: Fault | null): PlannedReply {
    const kind = fault?.kind ?? null;
    if (fault?.kind === 'say') return { text: fault.text, calls: [], fault: kind };
    if (kind === 'empty') return { text: '', calls: [], fault: kind };
    if (kind === 'text-only' || kind === 'malformed')
      return { text: 'I believe the maze is mostly long corridors; I am near the middle.', calls: [], fault: kind };
    const { rows, position } = this.player.believe(turn.model, turn.system, turn.texts.slice(0, -1), this.beliefNoise);
    const where = position ? `\nposition: ${position[0]},${position[1]}` : '';
    return { text: `The maze as I believe it is:\n\`\`\`\n${rows.join('\n')}\n\`\`\`${where}`, calls: [], fault: null };
  }

  /** What the simulated model answers, given the fault to play. */
  protected plan(turn: ModelTurn, fault: Fault | null): PlannedReply {
    if (turn.texts.at(-1)?.includes(BELIEF_PROBE_MARK)) return this.probeAnswer(turn, fault);
    const kind = fault?.kind ?? null;
    if (kind === 'empty') return { text: '', calls: [], fault: kind };
    if (kind === 'text-only') return { text: 'I am thinking about where to go next.', calls: [], fault: kind };
    if (fault?.kind === 'script')
      return { text: '', calls: fault.calls.map((name) => ({ name, arguments: {} })), fault: kind };
    if (fault?.kind === 'say') return { text: fault.text, calls: [], fault: kind };
    if (turn.tools.length === 0) {
      // Offered no tools (a workflow's thinking or choosing step): answer in words;
      // pick the first option when asked to choose.
      const options = /Answer with exactly one of: ([^\n]+)\./.exec(turn.texts.at(-1) ?? '');
      return {
        text: options ? options[1].split(', ')[0] : 'I will head for the nearest unexplored tiles and avoid walls.',
        calls: [],
        fault: null,
      };
    }
    if (kind === 'malformed') {
      return {
        text: '',
        calls: [
          { name: 'teleport', arguments: { to: 'goal' } },
          { name: 'move_north', arguments: { reasoning: 42 } },
        ],
        fault: kind,
      };
    }
    // a model calls only the tools it is offered
    const calls = this.player
      .decide(turn.model, turn.system, turn.texts, this.callsPerReply)
      .filter((c) => turn.tools.includes(c.name));
    if (kind === 'text-embedded') {
      const first = calls[0] ?? { name: 'recall_all', arguments: {} };
      return {
        text:
          'I will move now.\n```json\n' + JSON.stringify({ name: first.name, arguments: first.arguments }) + '\n```',
        calls: [],
        fault: kind,
      };
    }
    return { text: calls.length > 0 ? '' : 'Nothing left to explore.', calls, fault: kind === 'slow' ? kind : null };
  }
}

/**
 * A reply under an output cap, as the services cut one: reasoning first, then text; a tool call cut short is no
 * call at all, and the reply counts exactly the cap. `tokens`: what the whole reply would count.
 */
export function cutAtCap<C>(
  reply: { reasoning: string; text: string; calls: C[]; tokens: number },
  cap: unknown,
): { reasoning: string; text: string; calls: C[]; tokens: number; truncated: boolean } {
  if (typeof cap !== 'number' || cap < 0 || reply.tokens <= cap) return { ...reply, truncated: false };
  const reasoning = reply.reasoning.slice(0, cap * 4);
  return {
    reasoning,
    text: reply.text.slice(0, Math.max(0, cap * 4 - reasoning.length)),
    calls: [],
    tokens: cap,
    truncated: true,
  };
}

/** Parses a fault list such as "429x2,500,reset,slow:3000,text-embedded" (for `ariadne sim`). */
export function parseFaults(spec: string): Fault[] {
  const out: Fault[] = [];
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    // Only a trailing "x<N>" repeats: "text-embedded" has an x of its own.
    const repeat = /^(.+)x(\d+)$/.exec(part);
    const what = repeat ? repeat[1] : part;
    const n = repeat ? Number(repeat[2]) : 1;
    if (n < 1 || n > 1000) throw new Error(`fault "${part}": the repeat count after x must be from 1 to 1000`);
    let fault: Fault;
    if (/^\d{3}$/.test(what)) fault = { kind: 'status', status: Number(what) };
    else if (/^slow:\d+$/.test(what)) fault = { kind: 'slow', ms: Number(what.slice(5)) };
    else if (what.startsWith('script:')) fault = { kind: 'script', calls: what.slice(7).split('+') };
    else if (what.startsWith('say:')) fault = { kind: 'say', text: what.slice(4) };
    else if (['reset', 'malformed', 'text-embedded', 'text-only', 'empty'].includes(what))
      fault = { kind: what as 'reset' };
    else
      throw new Error(
        `fault "${part}" is not one of: NNN (HTTP status), reset, slow:MS, malformed, text-embedded, ` +
          `text-only, empty, script:TOOL+TOOL..., say:TEXT`,
      );
    for (let i = 0; i < n; i++) out.push(fault);
  }
  return out;
}
