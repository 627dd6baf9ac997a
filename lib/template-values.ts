// Resolves a synthesized template's values (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, ...) to the strings a deployment to
// one fixed fake account and Region would produce, so the rehearsal has ONE naming everywhere: the ARN a Lambda's
// environment names must be the one its policy names, or a call would be denied (or allowed) for a reason AWS would
// not have. How physical names are generated, and the wildcard mode for `policy researcher --template`, is on the
// naming functions.
import { createHash } from 'node:crypto';

/** The fake deployment target every value is resolved for. */
export interface FakeEnvironment {
  account: string;
  region: string;
  partition: string;
  stackName: string;
  urlSuffix: string;
}

export const FAKE_ENVIRONMENT: FakeEnvironment = {
  account: '123456789012',
  region: 'eu-west-1',
  partition: 'aws',
  stackName: 'Ariadne',
  urlSuffix: 'amazonaws.com',
};

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

/** The parts of a CloudFormation template the rehearsal reads. */
export interface CfnTemplate {
  Resources: Record<string, TemplateResource>;
  Parameters?: Record<string, { Type: string; Default?: unknown }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/** A value the resolver cannot turn into a concrete string; `path` says where in the template it is. */
export class TemplateValueError extends Error {
  override readonly name = 'TemplateValueError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

/** The property that holds a resource's name when the template sets one, and the name's limits. */
const NAMING: Record<string, { property?: string; maxLength: number; lowerCase?: boolean }> = {
  'AWS::IAM::Role': { property: 'RoleName', maxLength: 64 },
  'AWS::IAM::Policy': { property: 'PolicyName', maxLength: 128 },
  'AWS::IAM::ManagedPolicy': { property: 'ManagedPolicyName', maxLength: 128 },
  'AWS::Lambda::Function': { property: 'FunctionName', maxLength: 64 },
  'AWS::StepFunctions::StateMachine': { property: 'StateMachineName', maxLength: 80 },
  'AWS::S3::Bucket': { property: 'BucketName', maxLength: 63, lowerCase: true },
  'AWS::RDS::DBCluster': { property: 'DBClusterIdentifier', maxLength: 63, lowerCase: true },
  'AWS::RDS::DBInstance': { property: 'DBInstanceIdentifier', maxLength: 63, lowerCase: true },
  'AWS::SecretsManager::Secret': { property: 'Name', maxLength: 256 },
  'AWS::SQS::Queue': { property: 'QueueName', maxLength: 80 },
  'AWS::Logs::LogGroup': { property: 'LogGroupName', maxLength: 512 },
  'AWS::SSM::Parameter': { property: 'Name', maxLength: 1011 },
  'AWS::Events::Rule': { property: 'Name', maxLength: 64 },
};

const hash = (text: string, length: number) =>
  createHash('sha256')
    .update(text)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .toUpperCase()
    .slice(0, length);

/** A generated name when names are wildcards. */
const GENERATED_NAME = '*';

/** Whether a name, or an ARN ending in one, is a name CloudFormation has yet to generate (the wildcard mode's). */
export const isGeneratedName = (nameOrArn: string) =>
  nameOrArn === GENERATED_NAME || nameOrArn.endsWith(`:${GENERATED_NAME}`);

export class TemplateValues {
  constructor(
    readonly template: CfnTemplate,
    readonly env: FakeEnvironment = FAKE_ENVIRONMENT,
    readonly generatedNames: 'simulated' | 'wildcard' = 'simulated',
  ) {}

  /** `value` with every intrinsic function resolved, deeply (objects and arrays keep their shape). */
  resolve(value: unknown, path = '$'): unknown {
    if (value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((v, i) => this.resolve(v, `${path}[${i}]`));
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && (entries[0][0] === 'Ref' || entries[0][0].startsWith('Fn::')))
      return this.intrinsic(entries[0][0], entries[0][1], `${path}.${entries[0][0]}`);
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v, `${path}.${k}`)]));
  }

  /** `value` resolved to one string (an environment variable, an ARN); anything else throws. */
  resolveString(value: unknown, path = '$'): string {
    const out = this.resolve(value, path);
    if (typeof out === 'string') return out;
    if (typeof out === 'number' || typeof out === 'boolean') return String(out);
    throw new TemplateValueError(path, `resolves to ${JSON.stringify(out)}, not a string`);
  }

  private resource(logicalId: string, path: string): TemplateResource {
    const r = this.template.Resources[logicalId];
    if (!r) throw new TemplateValueError(path, `no resource ${logicalId} in the template`);
    return r;
  }

  /**
   * The name a resource gets: its name property if set, else `<StackName>-<LogicalId>-<HASH>` as CloudFormation
   * generates one ("Name type", CloudFormation User Guide): HASH is 12 characters of sha256(logicalId), so names are
   * stable across runs; the logical id is cut to fit the type's length limit, lower case where the service requires.
   * In the wildcard mode (a real deployment's values before it exists) a generated name is "*": AWS's example
   * ("MyStack-MyBucket-abcdefghijk1") says what CloudFormation "might" name a resource, not a format to rely on.
   */
  physicalName(logicalId: string, path = '$'): string {
    const r = this.resource(logicalId, path);
    const naming = NAMING[r.Type] ?? { maxLength: 255 };
    const set = naming.property ? r.Properties?.[naming.property] : undefined;
    if (set !== undefined) return this.resolveString(set, `${path}<${logicalId}.${naming.property}>`);
    if (this.generatedNames === 'wildcard') return GENERATED_NAME;
    const suffix = hash(logicalId, 12);
    const room = naming.maxLength - this.env.stackName.length - suffix.length - 2;
    const name = `${this.env.stackName}-${logicalId.slice(0, Math.max(room, 1))}-${suffix}`;
    return naming.lowerCase ? name.toLowerCase() : name;
  }

  private arn(service: string, resource: string, region = this.env.region, account = this.env.account): string {
    return `arn:${this.env.partition}:${service}:${region}:${account}:${resource}`;
  }

  /** AWS appends "-" and six characters to every secret's name ("ARN of a secret"); here derived from the name. */
  private secretArn(logicalId: string, path: string): string {
    const name = this.physicalName(logicalId, path);
    if (name === GENERATED_NAME) return this.arn('secretsmanager', `secret:${name}`);
    const suffix = hash(`secret:${name}`, 6).toLowerCase();
    return this.arn('secretsmanager', `secret:${name}-${suffix}`);
  }

  /**
   * Every resource of the template that has tags (a Tags list of Key and Value), by its ARN: what a request on it
   * carries as aws:ResourceTag/KEY, for the actions that take that condition key.
   */
  taggedResources(): Map<string, Record<string, string>> {
    const arnAttribute: Record<string, string> = { 'AWS::RDS::DBCluster': 'DBClusterArn' };
    const out = new Map<string, Record<string, string>>();
    for (const [id, r] of Object.entries(this.template.Resources)) {
      const tags = r.Properties?.Tags;
      if (!Array.isArray(tags)) continue;
      const path = `$.Resources.${id}.Properties.Tags`;
      let arn: string;
      try {
        arn = this.attribute(id, arnAttribute[r.Type] ?? 'Arn', path);
      } catch (err) {
        if (err instanceof TemplateValueError) continue; // a type whose ARN the stack never names
        throw err;
      }
      const entries = (tags as Array<{ Key: unknown; Value: unknown }>).map((t, i) => [
        this.resolveString(t.Key, `${path}[${i}].Key`),
        this.resolveString(t.Value, `${path}[${i}].Value`),
      ]);
      out.set(arn, Object.fromEntries(entries) as Record<string, string>);
    }
    return out;
  }

  /** What `Ref` returns: a pseudo parameter, a parameter's default, or the resource's documented Ref value. */
  ref(name: string, path = '$'): string {
    const e = this.env;
    const pseudo: Record<string, string> = {
      'AWS::Partition': e.partition,
      'AWS::Region': e.region,
      'AWS::AccountId': e.account,
      'AWS::StackName': e.stackName,
      'AWS::URLSuffix': e.urlSuffix,
      'AWS::StackId': this.arn('cloudformation', `stack/${e.stackName}/${hash(e.stackName, 8).toLowerCase()}`),
    };
    if (Object.hasOwn(pseudo, name)) return pseudo[name];
    if (name.startsWith('AWS::')) throw new TemplateValueError(path, `unsupported pseudo parameter ${name}`);
    const parameter = this.template.Parameters?.[name];
    if (parameter) {
      // An SSM-typed parameter's Default is a parameter NAME, not its value: nothing to resolve it to here.
      if (parameter.Default === undefined || parameter.Type.startsWith('AWS::SSM::'))
        throw new TemplateValueError(path, `parameter ${name} (${parameter.Type}) has no value outside a deployment`);
      return this.resolveString(parameter.Default, path);
    }
    const r = this.resource(name, path);
    switch (r.Type) {
      case 'AWS::StepFunctions::StateMachine':
      case 'AWS::SecretsManager::Secret':
      case 'AWS::IAM::ManagedPolicy':
        return this.attribute(name, 'Arn', path);
      case 'AWS::SecretsManager::SecretTargetAttachment':
        // Ref of an attachment is the ARN of the secret it attaches (AWS::SecretsManager::SecretTargetAttachment).
        return this.resolveString(r.Properties?.SecretId, `${path}<${name}.SecretId>`);
      case 'AWS::SQS::Queue':
        return this.attribute(name, 'QueueUrl', path);
      default:
        return this.physicalName(name, path);
    }
  }

  /** What `Fn::GetAtt [logicalId, attribute]` returns, for the resource types and attributes the stack uses. */
  attribute(logicalId: string, attribute: string, path = '$'): string {
    const r = this.resource(logicalId, path);
    const name = () => this.physicalName(logicalId, path);
    const iamPath = () => this.resolveString(r.Properties?.Path ?? '/', path);
    const e = this.env;
    const key = `${r.Type}.${attribute}`;
    switch (key) {
      case 'AWS::IAM::Role.Arn':
        return `arn:${e.partition}:iam::${e.account}:role${iamPath()}${name()}`;
      case 'AWS::IAM::Role.RoleId':
        return `AROA${hash(`role:${logicalId}`, 17)}`;
      case 'AWS::IAM::ManagedPolicy.Arn':
      case 'AWS::IAM::ManagedPolicy.PolicyArn':
        return `arn:${e.partition}:iam::${e.account}:policy${iamPath()}${name()}`;
      case 'AWS::Lambda::Function.Arn':
        return this.arn('lambda', `function:${name()}`);
      case 'AWS::StepFunctions::StateMachine.Arn':
        return this.arn('states', `stateMachine:${name()}`);
      case 'AWS::StepFunctions::StateMachine.Name':
        return name();
      case 'AWS::S3::Bucket.Arn':
        return `arn:${e.partition}:s3:::${name()}`;
      case 'AWS::S3::Bucket.DomainName':
        return `${name()}.s3.${e.urlSuffix}`;
      case 'AWS::S3::Bucket.RegionalDomainName':
        return `${name()}.s3.${e.region}.${e.urlSuffix}`;
      case 'AWS::RDS::DBCluster.DBClusterArn':
        // The cluster ARN names the cluster identifier (what Ref returns), as the template's own Fn::Join does.
        return this.arn('rds', `cluster:${name()}`);
      case 'AWS::RDS::DBCluster.Endpoint.Address':
        return `${name()}.cluster-${hash(e.account, 12).toLowerCase()}.${e.region}.rds.${e.urlSuffix}`;
      case 'AWS::RDS::DBCluster.Endpoint.Port':
        return '5432';
      case 'AWS::SecretsManager::Secret.Id':
      case 'AWS::SecretsManager::Secret.Arn':
        return this.secretArn(logicalId, path);
      case 'AWS::SQS::Queue.Arn':
        return this.arn('sqs', name());
      case 'AWS::SQS::Queue.QueueName':
        return name();
      case 'AWS::SQS::Queue.QueueUrl':
        return `https://sqs.${e.region}.${e.urlSuffix}/${e.account}/${name()}`;
      case 'AWS::Logs::LogGroup.Arn':
        return this.arn('logs', `log-group:${name()}:*`);
      case 'AWS::Events::Rule.Arn':
        return this.arn('events', `rule/${name()}`);
      default:
        throw new TemplateValueError(path, `Fn::GetAtt ${logicalId}.${attribute} (${r.Type}) is not modelled`);
    }
  }

  private intrinsic(fn: string, arg: unknown, path: string): unknown {
    const list = (n: number) => {
      if (!Array.isArray(arg) || arg.length !== n)
        throw new TemplateValueError(path, `${fn} takes a list of ${n}, got ${JSON.stringify(arg)}`);
      return arg as unknown[];
    };
    switch (fn) {
      case 'Ref':
        if (typeof arg !== 'string') throw new TemplateValueError(path, 'Ref takes a name');
        return this.ref(arg, path);
      case 'Fn::GetAtt': {
        // Both forms: ["Id", "Attr.Sub"] and "Id.Attr.Sub".
        const [id, ...attr] = typeof arg === 'string' ? arg.split('.') : (list(2) as string[]);
        return this.attribute(id, typeof arg === 'string' ? attr.join('.') : String(attr[0]), path);
      }
      case 'Fn::Join': {
        const [delimiter, parts] = list(2);
        const items = this.resolve(parts, `${path}[1]`);
        if (typeof delimiter !== 'string' || !Array.isArray(items))
          throw new TemplateValueError(path, 'Fn::Join takes [delimiter, list]');
        return items.map((p, i) => this.resolveString(p, `${path}[1][${i}]`)).join(delimiter);
      }
      case 'Fn::Select': {
        const [index, items] = list(2);
        const resolved = this.resolve(items, `${path}[1]`);
        const i = Number(this.resolve(index, `${path}[0]`));
        if (!Array.isArray(resolved) || !Number.isInteger(i) || i < 0 || i >= resolved.length)
          throw new TemplateValueError(path, `Fn::Select index ${i} outside ${JSON.stringify(resolved)}`);
        return resolved[i];
      }
      case 'Fn::Split': {
        const [delimiter, text] = list(2);
        return this.resolveString(text, `${path}[1]`).split(String(delimiter));
      }
      case 'Fn::GetAZs':
        // Three zones, as most Regions have; the stack only uses them to name subnets.
        return ['a', 'b', 'c'].map((z) => `${this.resolveString(arg, path) || this.env.region}${z}`);
      case 'Fn::Sub': {
        const [text, vars] = typeof arg === 'string' ? [arg, {}] : list(2);
        if (typeof text !== 'string' || typeof vars !== 'object' || vars === null)
          throw new TemplateValueError(path, 'Fn::Sub takes a string or [string, {variables}]');
        return text.replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, name: string) => {
          if (literal) return `\${${name}}`; // ${!Literal} is written as ${Literal}
          if (Object.hasOwn(vars, name))
            return this.resolveString((vars as Record<string, unknown>)[name], `${path}[1].${name}`);
          const dot = name.indexOf('.');
          if (dot > 0 && !name.startsWith('AWS::'))
            return this.attribute(name.slice(0, dot), name.slice(dot + 1), `${path}<\${${name}}>`);
          return this.ref(name, `${path}<\${${name}}>`);
        });
      }
      default:
        throw new TemplateValueError(path, `intrinsic function ${fn} is not supported`);
    }
  }
}
