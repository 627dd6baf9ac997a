// A prompt version may be a declarative workflow instead of one prompt: YAML
// with states, transitions, steps and prompt components. It is validated in
// full when loaded (zod for the shape, then every reference and every
// expression), and every problem is reported at once, each with its path in
// the YAML and its line, e.g. `steps[2].run_if (line 17): Unknown variable: atempts`.
import { z } from 'zod';
import { parseDocument } from 'yaml';
import { readYaml, YamlFileError, type YamlFile, type YamlProblem } from '../../config/yaml-paths.ts';
import { TOOL_NAMES } from '../tools.ts';
import { BUILTIN_VARIABLES, Expressions, ExpressionError, typeOf, type VarType, type VarValue } from './expressions.ts';

const name = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, 'a lower-case name: letters, digits and _, starting with a letter');
const expression = z.string().min(1).max(2_000);
const template = z.string().min(1).max(20_000);

const onFailureSchema = z
  .object({
    action: z.enum(['retry', 'skip', 'fail']),
    max_retries: z.number().int().min(0).max(10).default(1),
  })
  .strict();

const stepBase = {
  name,
  in_state: z.union([name, z.array(name).min(1)]).optional(),
  run_if: expression.optional(),
  transition_to: name.optional(),
  on_failure: onFailureSchema.default({ action: 'fail', max_retries: 0 }),
};

const llmStep = z
  .object({
    ...stepBase,
    type: z.literal('llm'),
    prompt: template,
    /** Tools the model may call in this step; [] for a step that only thinks. Default: all. */
    tools: z.array(z.enum(TOOL_NAMES as [string, ...string[]])).optional(),
    /** Where the reply text goes (a string variable), e.g. a plan for later steps. */
    save_reply_as: name.optional(),
  })
  .strict();

const codeStep = z
  .object({
    ...stepBase,
    type: z.literal('code'),
    /** variable: expression, evaluated in order. */
    set: z.record(name, expression).refine((s) => Object.keys(s).length > 0, 'set at least one variable'),
  })
  .strict();

const transitionStep = z
  .object({
    ...stepBase,
    type: z.literal('transition'),
    prompt: template,
    /** The model's answer (a key) -> the state to go to. */
    transition_map: z
      .record(z.string().regex(/^[a-z0-9_-]{1,40}$/, 'an option: lower-case letters, digits, - or _'), name)
      .refine((m) => Object.keys(m).length >= 2, 'give the model at least two options'),
  })
  .strict();

// the pieces the checks on top of the shape read on their own (see loadWorkflow)
const stepSchema = z.discriminatedUnion('type', [llmStep, codeStep, transitionStep]);
const statesSchema = z.array(name).min(1).max(50);
const variablesSchema = z.record(name, z.union([z.number().finite(), z.string().max(10_000), z.boolean()])).default({});
const transitionSchema = z
  .object({ from: z.union([name, z.literal('*')]), to: name, condition: expression.optional() })
  .strict();
const componentSchema = z
  .object({
    name,
    text: template,
    inject_into: z.array(name).min(1),
    position: z.enum(['before', 'after']).default('before'),
  })
  .strict();

const workflowSchema = z
  .object({
    workflow: name,
    description: z.string().max(2_000).optional(),
    /** The system prompt; {width}, {height}, ... as in plain prompt versions, filled in at start. */
    system: template,
    states: statesSchema,
    initial_state: name,
    variables: variablesSchema,
    transitions: z.array(transitionSchema).default([]),
    components: z.array(componentSchema).default([]),
    steps: z.array(stepSchema).min(1).max(100),
    /** Steps run for one reply before the workflow gives up the turn (a guard against loops without model calls). */
    max_steps_per_reply: z.number().int().min(1).max(1_000).default(50),
  })
  .strict();

type Workflow = z.output<typeof workflowSchema>;
export type WorkflowStep = Workflow['steps'][number];

/** A workflow that cannot be loaded. */
export class WorkflowDefinitionError extends YamlFileError {
  override readonly name = 'WorkflowDefinitionError';
  constructor(problems: YamlProblem[], source: string) {
    super('workflow', problems, source);
  }
}

/** A loaded workflow with its expressions checked, ready to run. */
export interface LoadedWorkflow {
  definition: Workflow;
  types: Record<string, VarType>;
  expressions: Expressions;
  /** Variables a step prompt may use: the built-ins, the workflow's own. */
  initialVariables: Record<string, VarValue>;
}

/** Whether a prompt version's text is a workflow (YAML with a top-level `workflow:` key) rather than a prompt. */
export function isWorkflowText(text: string): boolean {
  return /^workflow:\s*\S/m.test(text);
}

const loadCache = new Map<string, LoadedWorkflow>();

function variableTypes(variables: Record<string, VarValue>): Record<string, VarType> {
  const types: Record<string, VarType> = Object.fromEntries(
    Object.entries(BUILTIN_VARIABLES).map(([k, v]) => [k, v.type]),
  );
  for (const [k, v] of Object.entries(variables)) types[k] = typeOf(v);
  return types;
}

/**
 * Loads and checks a workflow, reporting every problem at once (WorkflowDefinitionError). Each check on top of the
 * shape reads only the pieces it needs (a step, a transition), so a problem in one does not hide one in another; a
 * check whose pieces are invalid is skipped (their problems are already reported).
 */
export function loadWorkflow(text: string, source = 'prompt'): LoadedWorkflow {
  const cached = loadCache.get(text);
  if (cached) return cached;
  const file = readYaml(text, workflowSchema, (problems) => new WorkflowDefinitionError(problems, source));
  const pieces: WorkflowPieces = {
    file,
    steps: file.items(['steps'], stepSchema),
    transitions: file.items(['transitions'], transitionSchema),
    components: file.items(['components'], componentSchema),
  };
  const stepNames = checkSteps(pieces, checkStates(pieces));
  checkComponents(pieces, stepNames);
  checkVariables(pieces);

  const wf = file.done();
  const types = variableTypes(wf.variables);
  const loaded: LoadedWorkflow = {
    definition: wf,
    types,
    expressions: new Expressions(types),
    initialVariables: { ...wf.variables },
  };
  if (loadCache.size > 100) loadCache.clear();
  loadCache.set(text, loaded);
  return loaded;
}

/** The workflow file and the pieces of it that parsed, each with its index. */
interface WorkflowPieces {
  file: YamlFile<Workflow>;
  steps: Array<[number, WorkflowStep]>;
  transitions: Array<[number, z.output<typeof transitionSchema>]>;
  components: Array<[number, z.output<typeof componentSchema>]>;
}

type StateCheck = (s: string | undefined, path: PropertyKey[]) => void;

/** Reports a reference to a state that is not listed; with no valid list of states, none can be judged. */
function stateChecker({ file }: WorkflowPieces): StateCheck {
  const stateList = file.piece(['states'], statesSchema);
  stateList?.forEach((s, i) => {
    if (stateList.indexOf(s) !== i) file.report(['states', i], `state "${s}" is listed twice`);
  });
  return (s, path) => {
    if (stateList && s !== undefined && !stateList.includes(s))
      file.report(path, `"${s}" is not a state; states are: ${stateList.join(', ')}`);
  };
}

/** The states named by the initial state and the transitions; returns the check of a state reference. */
function checkStates(pieces: WorkflowPieces): StateCheck {
  const state = stateChecker(pieces);
  state(pieces.file.piece(['initial_state'], name), ['initial_state']);
  for (const [i, t] of pieces.transitions) {
    if (t.from !== '*') state(t.from, ['transitions', i, 'from']);
    state(t.to, ['transitions', i, 'to']);
  }
  return state;
}

/** Each step's name defined once, and the states it names; returns the names. */
function checkSteps({ file, steps }: WorkflowPieces, state: StateCheck): Set<string> {
  const stepNames = new Set<string>();
  for (const [i, s] of steps) {
    if (stepNames.has(s.name)) file.report(['steps', i, 'name'], `step "${s.name}" is defined twice`);
    stepNames.add(s.name);
    const inState = s.in_state === undefined ? [] : Array.isArray(s.in_state) ? s.in_state : [s.in_state];
    inState.forEach((x, j) =>
      state(x, Array.isArray(s.in_state) ? ['steps', i, 'in_state', j] : ['steps', i, 'in_state']),
    );
    state(s.transition_to, ['steps', i, 'transition_to']);
    if (s.type === 'transition')
      for (const [k, to] of Object.entries(s.transition_map)) state(to, ['steps', i, 'transition_map', k]);
  }
  return stepNames;
}

/** Each component goes into an llm or transition step. */
function checkComponents({ file, steps, components }: WorkflowPieces, stepNames: Set<string>): void {
  // only when every step is valid: a component naming a step that failed to load is not "not a step"
  if (!file.piece(['steps'], z.array(stepSchema))) return;
  for (const [i, c] of components)
    c.inject_into.forEach((stepName, j) => {
      const target = steps.find(([, s]) => s.name === stepName)?.[1];
      if (!target)
        file.report(
          ['components', i, 'inject_into', j],
          `"${stepName}" is not a step; steps are: ${[...stepNames].join(', ')}`,
        );
      else if (target.type === 'code')
        file.report(
          ['components', i, 'inject_into', j],
          `step "${stepName}" is a code step; components go into llm and transition steps`,
        );
    });
}

/**
 * Variables and expressions; with invalid variables every expression would be judged against the wrong names, so
 * they wait until the variables are valid.
 */
function checkVariables(pieces: WorkflowPieces): void {
  const { file, steps, transitions, components } = pieces;
  const variables = file.piece(['variables'], variablesSchema);
  for (const k of Object.keys(variables ?? {}))
    if (Object.hasOwn(BUILTIN_VARIABLES, k))
      file.report(['variables', k], `"${k}" is a built-in variable; choose another name`);
  if (!variables) return;
  const types = variableTypes(variables);
  const { check, placeholders } = expressionCheckers(file, types);
  for (const [i, t] of transitions) if (t.condition) check(t.condition, ['transitions', i, 'condition'], 'bool');
  for (const [i, c] of components) placeholders(c.text, ['components', i, 'text']);
  for (const [i, s] of steps) {
    if (s.run_if) check(s.run_if, ['steps', i, 'run_if'], 'bool');
    if (s.type === 'code') {
      for (const [k, expr] of Object.entries(s.set)) {
        if (!Object.hasOwn(variables, k))
          file.report(
            ['steps', i, 'set', k],
            Object.hasOwn(BUILTIN_VARIABLES, k)
              ? `"${k}" is built in and read-only`
              : `"${k}" is not declared under variables`,
          );
        check(expr, ['steps', i, 'set', k], types[k]);
      }
    } else {
      placeholders(s.prompt, ['steps', i, 'prompt']);
    }
    if (s.type === 'llm' && s.save_reply_as && types[s.save_reply_as] !== 'string') {
      file.report(
        ['steps', i, 'save_reply_as'],
        `"${s.save_reply_as}" must be a string variable declared under variables`,
      );
    }
  }
}

/** Reports an expression that does not type-check (or gives the wrong type), and a placeholder naming no variable. */
function expressionCheckers({ report }: YamlFile<Workflow>, types: Record<string, VarType>) {
  const expressions = new Expressions(types);
  const check = (expr: string, path: PropertyKey[], want?: VarType) => {
    let got: string;
    try {
      got = expressions.check(expr);
    } catch (e) {
      return report(path, e instanceof ExpressionError ? e.message : String(e));
    }
    if (want && got !== want && !(want === 'double' && got === 'int')) report(path, `gives ${got}, expected ${want}`);
  };
  const placeholders = (tpl: string, path: PropertyKey[]) => {
    for (const m of tpl.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)) {
      if (!Object.hasOwn(types, m[1]))
        report(path, `{${m[1]}} is not a variable; known: ${Object.keys(types).join(', ')}`);
    }
  };
  return { check, placeholders };
}

/**
 * The workflow's text with its `system` prompt rendered (at start: the maze
 * and limits), everything else kept as written.
 */
export function renderWorkflowSystem(text: string, render: (system: string) => string, source: string): string {
  const wf = loadWorkflow(text, source);
  const doc = parseDocument(text);
  doc.set('system', render(wf.definition.system));
  return doc.toString({ lineWidth: 0 });
}
