// CloudFormation's stack operations, simulated over a synthesized template: CreateStack creates resources in
// dependency order, each as soon as what it depends on exists (as CloudFormation does in parallel), by a provisioner
// where one exists (RDS simulator, custom resource handlers). A failed creation rolls back in reverse order, keeping
// what DeletionPolicy keeps (aws-facts: cloudformation.retain-except-on-create); a failed delete ends ROLLBACK_FAILED,
// and a ROLLBACK_COMPLETE stack must be deleted first (cloudformation.rollback-complete).
import { fact } from '../aws-facts/facts.ts';
import type { RdsSim } from './rds-sim.ts';
import { RdsApiError } from './rds-sim.ts';

const RETAIN_EXCEPT_ON_CREATE = fact('cloudformation.retain-except-on-create').value;
const DEFAULT_DELETION_POLICY = fact('cloudformation.default-deletion-policy').value;
const ROLLBACK_COMPLETE = fact('cloudformation.rollback-complete').value.status;
const ROLLBACK_FAILED = fact('cloudformation.rollback-failed').value;

type Outcome = 'deleted' | 'retained';
/** What each DeletionPolicy does to a resource on the rollback of the operation that created it. */
const ON_ROLLBACK: Record<string, Outcome> = {
  Delete: 'deleted',
  Snapshot: 'deleted', // after its snapshot
  // "also preserves resources that are deleted from stacks before serving traffic ... during rollbacks"
  Retain: 'retained',
  RetainExceptOnCreate: RETAIN_EXCEPT_ON_CREATE.rollbackOfTheCreatingOperation,
};
/** What each DeletionPolicy does to a resource when its stack is deleted. */
const ON_STACK_DELETE: Record<string, Outcome> = {
  ...ON_ROLLBACK,
  RetainExceptOnCreate: RETAIN_EXCEPT_ON_CREATE.otherOperations,
};

type StackStatus =
  | 'CREATE_IN_PROGRESS'
  | 'CREATE_COMPLETE'
  | 'ROLLBACK_IN_PROGRESS'
  | typeof ROLLBACK_COMPLETE
  | typeof ROLLBACK_FAILED
  | 'DELETE_IN_PROGRESS'
  | 'DELETE_COMPLETE'
  | 'DELETE_FAILED';

type ResourceStatus =
  | 'CREATE_IN_PROGRESS'
  | 'CREATE_COMPLETE'
  | 'CREATE_FAILED'
  | 'DELETE_IN_PROGRESS'
  | 'DELETE_COMPLETE'
  | 'DELETE_FAILED'
  | 'DELETE_SKIPPED';

export interface DeployTemplate {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; DependsOn?: string | string[]; DeletionPolicy?: string }
  >;
  Parameters?: Record<string, unknown>;
}

/** What a provisioner is asked to create or delete: the resource as the template has it (values unresolved). */
export interface ProvisionRequest {
  stackName: string;
  logicalId: string;
  type: string;
  properties: Record<string, unknown>;
}

/** Creates and deletes one resource type for real (in a simulator, through a handler); throws to fail. */
export interface Provisioner {
  /** Returns the physical id. */
  create(request: ProvisionRequest): Promise<string>;
  delete(request: ProvisionRequest & { physicalId: string }): Promise<void>;
}

export interface StackEvent {
  logicalId: string;
  type: string;
  status: ResourceStatus | StackStatus;
  reason?: string;
}

interface StackResource {
  logicalId: string;
  type: string;
  physicalId: string;
  status: ResourceStatus;
}

export interface SimulatedStack {
  name: string;
  status: StackStatus;
  /** The resources the stack holds, in the order they were created. */
  resources: Map<string, StackResource>;
  events: StackEvent[];
}

/** The template refers to a resource it does not have, or its dependencies form a circle (CreateStack refuses it). */
export class TemplateDependencyError extends Error {
  override readonly name = 'TemplateDependencyError';
}

/** CloudFormation refused the operation itself (its error code: AlreadyExistsException, ValidationError). */
export class StackOperationError extends Error {
  override readonly name = 'StackOperationError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Template = DeployTemplate['Resources'];

/** The logical ids a value refers to: Ref, Fn::GetAtt (both forms) and Fn::Sub's ${Id} and ${Id.Attr}. */
function references(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((v) => references(v, out));
  if (value === null || typeof value !== 'object') return;
  for (const [key, arg] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'Ref' && typeof arg === 'string') out.add(arg);
    else if (key === 'Fn::GetAtt') out.add(typeof arg === 'string' ? arg.split('.')[0] : String((arg as unknown[])[0]));
    else if (key === 'Fn::Sub') {
      const [text, vars] = typeof arg === 'string' ? [arg, {}] : (arg as [string, Record<string, unknown>]);
      for (const m of text.matchAll(/\$\{([^!}][^}]*)\}/g)) if (!Object.hasOwn(vars, m[1])) out.add(m[1].split('.')[0]);
      references(vars, out);
    } else references(arg, out);
  }
}

/** Each resource's direct dependencies (resources only: parameters and pseudo parameters are not created). */
function dependencies(template: DeployTemplate): Map<string, Set<string>> {
  const ids = new Set(Object.keys(template.Resources));
  const out = new Map<string, Set<string>>();
  for (const [id, r] of Object.entries(template.Resources)) {
    const refs = new Set<string>([r.DependsOn ?? []].flat());
    references(r.Properties ?? {}, refs);
    const deps = new Set<string>();
    for (const ref of refs) {
      if (ids.has(ref)) deps.add(ref);
      else if (!ref.startsWith('AWS::') && !Object.hasOwn(template.Parameters ?? {}, ref))
        throw new TemplateDependencyError(
          `Template format error: Unresolved resource dependencies [${ref}] in the Resources block of the template`,
        );
    }
    out.set(id, deps);
  }
  return out;
}

/** The resources in waves: each wave depends only on earlier ones, and each resource is in the earliest it can be. */
function waves(template: DeployTemplate, deps: Map<string, Set<string>>): string[][] {
  const done = new Set<string>();
  const left = Object.keys(template.Resources);
  const out: string[][] = [];
  while (left.length) {
    const wave = left.filter((id) => [...deps.get(id)!].every((d) => done.has(d)));
    if (!wave.length) throw new TemplateDependencyError(`Circular dependency between resources: [${left.join(', ')}]`);
    for (const id of wave) {
      done.add(id);
      left.splice(left.indexOf(id), 1);
    }
    out.push(wave);
  }
  return out;
}

/** Every resource `id` depends on, directly or through others. */
function dependedOn(id: string, deps: Map<string, Set<string>>, out = new Set<string>()): Set<string> {
  for (const d of deps.get(id) ?? []) if (!out.has(d)) dependedOn(d, deps, out.add(d));
  return out;
}

interface StackState extends SimulatedStack {
  template: Template;
  deps: Map<string, Set<string>>;
}

export class StackDeployments {
  private readonly stacks = new Map<string, StackState>();
  /** What the stacks' operations left in the simulated account, by type and physical id (retained ones too). */
  readonly account = new Map<string, { type: string; physicalId: string; stack: string }>();

  constructor(private readonly provisioners: Record<string, Provisioner> = {}) {}

  stack(name: string): SimulatedStack | undefined {
    return this.stacks.get(name);
  }

  /** The provisioner of a type: its own, else the custom resources' one (Custom::* too). */
  private provisioner(type: string): Provisioner | undefined {
    if (this.provisioners[type]) return this.provisioners[type];
    if (type.startsWith('Custom::')) return this.provisioners['AWS::CloudFormation::CustomResource'];
    return undefined;
  }

  async createStack(name: string, template: DeployTemplate): Promise<SimulatedStack> {
    const existing = this.stacks.get(name);
    if (existing)
      throw new StackOperationError(
        'AlreadyExistsException',
        `Stack [${name}] already exists` +
          (existing.status === ROLLBACK_COMPLETE
            ? ` (${ROLLBACK_COMPLETE}: only a delete operation can be performed)`
            : ''),
      );
    const deps = dependencies(template);
    const order = waves(template, deps);
    const stack: StackState = {
      name,
      status: 'CREATE_IN_PROGRESS',
      resources: new Map(),
      events: [],
      template: template.Resources,
      deps,
    };
    this.stacks.set(name, stack);
    this.event(stack, name, 'AWS::CloudFormation::Stack', 'CREATE_IN_PROGRESS');
    for (const wave of order) {
      let failed = false;
      for (const id of wave) if (!(await this.create(stack, id))) failed = true;
      if (failed) {
        await this.rollBack(stack);
        return stack;
      }
    }
    stack.status = 'CREATE_COMPLETE';
    this.event(stack, name, 'AWS::CloudFormation::Stack', stack.status);
    return stack;
  }

  /** DeleteStack: what Retain and RetainExceptOnCreate keep stays in the account; a failed delete keeps the stack. */
  async deleteStack(name: string): Promise<SimulatedStack> {
    const stack = this.stacks.get(name);
    if (!stack) throw new StackOperationError('ValidationError', `Stack with id ${name} does not exist`);
    stack.status = 'DELETE_IN_PROGRESS';
    this.event(stack, name, 'AWS::CloudFormation::Stack', stack.status);
    const failed = await this.deleteAll(stack, ON_STACK_DELETE);
    stack.status = failed ? 'DELETE_FAILED' : 'DELETE_COMPLETE';
    this.event(stack, name, 'AWS::CloudFormation::Stack', stack.status);
    if (!failed) this.stacks.delete(name);
    return stack;
  }

  private async create(stack: StackState, id: string): Promise<boolean> {
    const r = stack.template[id];
    this.event(stack, id, r.Type, 'CREATE_IN_PROGRESS');
    try {
      const request = { stackName: stack.name, logicalId: id, type: r.Type, properties: r.Properties ?? {} };
      const physicalId = (await this.provisioner(r.Type)?.create(request)) ?? `${stack.name}-${id}`;
      stack.resources.set(id, { logicalId: id, type: r.Type, physicalId, status: 'CREATE_COMPLETE' });
      this.account.set(`${r.Type} ${physicalId}`, { type: r.Type, physicalId, stack: stack.name });
      this.event(stack, id, r.Type, 'CREATE_COMPLETE');
      return true;
    } catch (err) {
      // Nothing to delete on rollback: CDK's custom resource framework answers a failed Create with a marker
      // physical id whose Delete it ignores, and a resource that failed to create does not exist.
      this.event(stack, id, r.Type, 'CREATE_FAILED', (err as Error).message);
      return false;
    }
  }

  private async rollBack(stack: StackState): Promise<void> {
    stack.status = 'ROLLBACK_IN_PROGRESS';
    this.event(stack, stack.name, 'AWS::CloudFormation::Stack', stack.status);
    const failed = await this.deleteAll(stack, ON_ROLLBACK);
    stack.status = failed ? ROLLBACK_FAILED : ROLLBACK_COMPLETE;
    this.event(stack, stack.name, 'AWS::CloudFormation::Stack', stack.status);
  }

  /**
   * Deletes the stack's resources, last created first (what depends on a resource was created after it). A kept one
   * leaves the stack but stays in the account (DELETE_SKIPPED); one whose delete fails stays in both, and so does
   * everything it depends on (deleting a subnet group under a cluster that stays would fail too). True if any failed.
   */
  private async deleteAll(stack: StackState, outcomes: Record<string, Outcome>): Promise<boolean> {
    const staying = new Set<string>();
    let failed = false;
    for (const r of [...stack.resources.values()].reverse()) {
      if (staying.has(r.logicalId)) continue;
      const policy = stack.template[r.logicalId].DeletionPolicy ?? DEFAULT_DELETION_POLICY;
      if (outcomes[policy] !== 'deleted') {
        this.event(stack, r.logicalId, r.type, 'DELETE_SKIPPED');
        stack.resources.delete(r.logicalId);
        continue;
      }
      r.status = 'DELETE_IN_PROGRESS';
      this.event(stack, r.logicalId, r.type, r.status);
      try {
        const properties = stack.template[r.logicalId].Properties ?? {};
        const request = { stackName: stack.name, logicalId: r.logicalId, type: r.type, properties };
        await this.provisioner(r.type)?.delete({ ...request, physicalId: r.physicalId });
        this.event(stack, r.logicalId, r.type, 'DELETE_COMPLETE');
        stack.resources.delete(r.logicalId);
        this.account.delete(`${r.type} ${r.physicalId}`);
      } catch (err) {
        r.status = 'DELETE_FAILED';
        this.event(stack, r.logicalId, r.type, r.status, (err as Error).message);
        failed = true;
        for (const d of dependedOn(r.logicalId, stack.deps)) staying.add(d);
      }
    }
    return failed;
  }

  private event(stack: StackState, logicalId: string, type: string, status: StackEvent['status'], reason?: string) {
    stack.events.push({ logicalId, type, status, ...(reason === undefined ? {} : { reason }) });
  }
}

/**
 * AWS::RDS::DBCluster through the RDS simulator: created with the template's DeletionProtection, deleted with
 * DeleteDBCluster's rule (a protected cluster is refused, and the refusal is the resource's DELETE_FAILED reason).
 * `identifierOf`: the cluster identifier a logical id gets (the template's DBClusterIdentifier or a generated name).
 */
export function rdsClusterProvisioner(rds: RdsSim, identifierOf: (logicalId: string) => string): Provisioner {
  return {
    create: ({ logicalId, properties }) => {
      const protection = properties.DeletionProtection;
      const cluster = rds.createCluster(identifierOf(logicalId), {
        deletionProtection: protection === true || protection === 'true',
      });
      return Promise.resolve(cluster.identifier);
    },
    delete: ({ physicalId }) => {
      try {
        rds.deleteCluster(physicalId);
        return Promise.resolve();
      } catch (err) {
        if (!(err instanceof RdsApiError)) throw err;
        return Promise.reject(new Error(`${err.message} (Service: Rds, Status Code: ${err.status}, ${err.code})`));
      }
    },
  };
}
