// The human baseline: a person plays through the same turn engine as every agent, shown exactly what a model is
// shown. The LLM agent's own conversation (llm-agent.ts) builds every message (the system prompt, each turn's
// observation in the run's format with what config.memory carries, each tool result and picture) and hands them to a
// HumanSeat in a model's place; the seat shows them (the terminal, the viewer's play page) and answers with the
// person's move as one tool call. Nothing is rendered twice, so nothing a person sees can differ from a model's.
import type { Agent, AgentFactory, AgentReply } from '../engine/agent.ts';
import { isWorkflowText } from '../engine/workflow/definition.ts';
import { isMoveTool, MOVE_TOOLS, RECALL_TOOL, type ToolSpec } from '../engine/tools.ts';
import { InvalidInputError } from '../errors.ts';
import type { ChatMessage, ChatModel, ModelReply } from './llm/chat-model.ts';
import { llmAgent } from './llm/llm-agent.ts';
import { HUMAN_AGENT, isHuman } from './human.ts';

/** Where a person played: the terminal (ariadne play) or the viewer's play page. */
type PlayedIn = 'terminal' | 'viewer';

/** What the person is shown before a move: the model's messages not shown yet, with the system prompt and tools. */
export interface HumanPrompt {
  /** The system prompt, as a model gets it with every call (a seat shows it once). */
  system: string;
  /** The messages of this call a model would read that the person has not seen: the turn's first, then results. */
  messages: ChatMessage[];
  /** The tools a model is offered (recall_all only when config.recall_tool is on). */
  tools: ToolSpec[];
  /** The first call of a turn: `messages` opens it with the turn's observation. */
  turnStart: boolean;
  /** The turn's number (the engine's, as the observation says it). */
  turn: number;
  /** Actions the turn has left (max_actions_per_turn less those taken). */
  actionsLeftInTurn: number;
}

/** The person's answer: one tool call, as a model makes one, or giving up (the run ends, a failure). */
export type HumanMove = { call: { name: string; arguments: Record<string, unknown> } } | { giveUp: true };

/** The person's side: shows a prompt and waits for the next move. */
export interface HumanSeat {
  readonly player: string;
  readonly playedIn: PlayedIn;
  /**
   * Shows `prompt` and resolves with the person's move. Rejects once `signal` aborts (the turn's deadline: the turn
   * ends, and the next one asks again), or with SeatClosedError when the person left (the input ended, the run is
   * being stopped): the turn then ends with what it did, and the seat's owner stops the run before the next turn.
   */
  next(prompt: HumanPrompt, signal: AbortSignal): Promise<HumanMove>;
}

/** The person left the seat (the input ended, Ctrl-C, the page closed): no move will come. */
export class SeatClosedError extends Error {
  override readonly name = 'SeatClosedError';
}

/**
 * A turn's wait for a move is bounded by the turn's deadline (the baseline turn function's, engine/turn-deadline.ts),
 * not by the model call timeout: one attempt, no retry.
 */
const WAIT_POLICY = { max_attempts: 1, base_delay_ms: 0, max_delay_ms: 0, max_total_ms: 0, timeout_ms: 86_400_000 };

/** The person as a chat model: each call shows what is new and answers with the person's move. One per turn. */
class HumanModel implements ChatModel {
  readonly provider = HUMAN_AGENT;
  readonly model: string;
  /** Messages of the prompt the person has been shown this turn. */
  private shown = 0;
  private calls = 0;
  gaveUp = false;
  /** Where the turn stands: set before each act from the observation the engine made. */
  at = { turn: 0, actionsLeftInTurn: 0 };

  constructor(private readonly seat: HumanSeat) {
    this.model = seat.player;
  }

  async complete(system: string, messages: ChatMessage[], tools: ToolSpec[], signal: AbortSignal) {
    const turnStart = this.shown === 0;
    // A turn's first call: its first message, after what a conversation carries that came after the person's last
    // move (the results of the last turn's last moves, which close its exchange); the rest was shown in its turn.
    const fresh = turnStart
      ? messages.slice(messages.findLastIndex((m) => m.role === 'assistant') + 1)
      : messages.slice(this.shown);
    this.shown = messages.length;
    const messagesShown = fresh.filter((m) => m.role !== 'assistant');
    const prompt = { system, messages: messagesShown, tools, turnStart, ...this.at };
    let move: HumanMove;
    try {
      move = await this.seat.next(prompt, signal);
    } catch (err) {
      // The person left: the turn ends with what it did (its owner stops the run before the next one).
      if (err instanceof SeatClosedError) return reply([]);
      // No move before the turn's deadline, and none yet this turn: the turn ends empty (an idle turn, as a model
      // that answers without a tool call); after a move, the engine ends the turn at its deadline with what it did.
      if (signal.aborted && turnStart) return reply([]);
      throw err;
    }
    if ('giveUp' in move) {
      this.gaveUp = true;
      return reply([]);
    }
    return reply([{ id: `human-${++this.calls}`, name: move.call.name, arguments: move.call.arguments }]);
  }
}

const reply = (calls: ModelReply['calls']): ModelReply => ({ text: '', calls, usage: null, stopReason: null });

/** The human agent of one turn: the LLM agent's conversation, answered by the person at `seat`. */
function humanAgent(identity: Parameters<AgentFactory>[0], seat: HumanSeat): Agent {
  const system = identity.promptText ?? '';
  if (isWorkflowText(system))
    throw new InvalidInputError(
      'config.prompt_version',
      identity.config.prompt_version,
      `prompt version "${identity.config.prompt_version}" is a workflow, which steers a model through steps; ` +
        'a person plays a plain prompt version (v2, v1 or your own)',
    );
  const model = new HumanModel(seat);
  const inner = llmAgent({
    model,
    system,
    policy: WAIT_POLICY,
    classify: (err) => ({ transient: false, status: 'human', message: String(err) }),
    config: identity.config,
    memory: identity.memory ?? null,
  });
  const memory = inner.memory?.bind(inner);
  return {
    // a person's moves are no model calls: no llm_calls rows, no budget
    callsModel: false,
    async act(observation, deadline): Promise<AgentReply> {
      model.at = { turn: observation.turnNumber, actionsLeftInTurn: observation.actionsLeftInTurn };
      // a person writes no reply text: the moves alone (latency: how long the person took)
      const { calls, latencyMs } = await inner.act(observation, deadline);
      return model.gaveUp ? { calls: [], text: null, latencyMs, gaveUp: true } : { calls, text: null, latencyMs };
    },
    ...(memory ? { memory } : {}),
    provenance: () => Promise.resolve({ provider: HUMAN_AGENT, player: seat.player, played_in: seat.playedIn }),
  };
}

/** The agents of a run a person plays at `seat`: `human` there, any other as `others` makes it. */
export function withHumanSeat(seat: HumanSeat, others: AgentFactory): AgentFactory {
  return (identity) => (isHuman(identity.agent) ? humanAgent(identity, seat) : others(identity));
}

/** What a person's typed command means: a move, recall, giving up, help, or a tool call of any other name. */
export type Command =
  | { kind: 'call'; call: { name: string; arguments: Record<string, unknown> } }
  | { kind: 'give-up' }
  | { kind: 'help' }
  | { kind: 'none' };

const WORDS: Record<string, string> = {
  n: 'move_north',
  north: 'move_north',
  up: 'move_north',
  s: 'move_south',
  south: 'move_south',
  down: 'move_south',
  e: 'move_east',
  east: 'move_east',
  right: 'move_east',
  w: 'move_west',
  west: 'move_west',
  left: 'move_west',
  r: RECALL_TOOL,
  recall: RECALL_TOOL,
};

export const COMMANDS_HELP =
  'n, s, e, w (or north, south, east, west; arrow keys in a terminal) move one tile, and may be followed by a ' +
  'reason ("n the corridor goes on"), kept as the move\'s reasoning; recall calls recall_all; a tool\'s own name ' +
  `(${Object.keys(MOVE_TOOLS).join(', ')}, ${RECALL_TOOL}) works too; quit gives up (the run ends, not solved); ` +
  "help shows this. Anything else is sent as a tool call of that name, as a model's would be: the engine refuses " +
  'it as an unknown tool, and it takes a step.';

/**
 * A line the person typed, as a tool call: the word first (case ignored), then an optional reason for a move. Blank
 * is nothing; quit (q, exit) gives up; help (?) asks for help. Any other word is a call of that name, which the
 * engine refuses as an unknown tool (a step taken, as for a model).
 */
export function parseCommand(line: string): Command {
  const text = line.trim();
  if (text === '') return { kind: 'none' };
  const [first, ...rest] = text.split(/\s+/);
  const word = first.toLowerCase();
  if (word === 'quit' || word === 'q' || word === 'exit') return { kind: 'give-up' };
  if (word === 'help' || word === '?' || word === 'h') return { kind: 'help' };
  const name = WORDS[word] ?? (isMoveTool(word) || word === RECALL_TOOL ? word : first);
  const reasoning = rest.join(' ');
  // a reason goes with a move (a move's only argument); recall_all takes none, an unknown tool gets what was typed
  return {
    kind: 'call',
    call: { name, arguments: reasoning !== '' && name !== RECALL_TOOL ? { reasoning } : {} },
  };
}
