// Every AWS limit and behaviour Ariadne's code and simulators rely on, each with its page and the sentence it rests
// on, so that a fact is checked against AWS's page, not against the code (the simulators once shared the code's
// mistakes). Imports nothing from the project, so anything may import it. test/aws-facts.test.ts lists which simulator
// enforces each fact (or `notSimulated` says why); docs/aws-facts.md is generated from it (npm run docs). Quotes were
// checked against stored copies of AWS's pages (2026-11); `confirmed: false` marks values only third parties give.

type AwsService =
  | 'RDS Data API'
  | 'Aurora Serverless v2'
  | 'Step Functions'
  | 'Lambda'
  | 'Bedrock'
  | 'Systems Manager'
  | 'Service Quotas'
  | 'IAM'
  | 'RDS'
  | 'CloudFormation'
  | 'CloudWatch';

export interface AwsFact {
  readonly service: AwsService;
  readonly value: unknown;
  /** What a number counts, where the key does not say it. */
  readonly unit?: string;
  /** The AWS documentation page (https://docs.aws.amazon.com/...). */
  readonly page: string;
  /** The sentence the value rests on, verbatim from the page as far as it could be verified. */
  readonly quote: string;
  /** Only third parties give the value (the note says which). */
  readonly confirmed?: false;
  readonly note?: string;
  /** Why no simulator enforces it; absent: a simulator reads it with fact(). */
  readonly notSimulated?: string;
}

const IAM_QUOTAS = 'https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html';
const IAM_QUOTAS_NOTE =
  "The page's table of character quotas renders these values from a fragment the stored copy of the page elides " +
  '(awsdocs/iam-user-guide, doc_source/reference_iam-quotas.md); the sentence is the one the IAM FAQ and many ' +
  'copies of the page quote alike. The page says of both: "IAM does not count white space when calculating the ' +
  'size of a policy against these quotas."';
const RESEARCHER_POLICY_CHECK =
  "IAM's own limit, not a behaviour of a service Ariadne calls: test/researcher-policy.test.ts checks the documents " +
  '`ariadne policy researcher` prints against it, white space not counted';
const EXECUTE_STATEMENT = 'https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_ExecuteStatement.html';
const DATA_API_LIMITS = 'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api.limitations.html';
const AUTO_PAUSE = 'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless-v2-auto-pause.html';
const SCALING_CONFIG =
  'https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_ServerlessV2ScalingConfiguration.html';
const SFN_QUOTAS = 'https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html';
const LAMBDA_QUOTAS = 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html';
const DELETION_POLICY =
  'https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-attribute-deletionpolicy.html';
const STACK_STATUS =
  'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cfn-console-view-stack-data-resources.html';
const MODEL_LIFECYCLE = 'https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html';
const RESULT_WRITER = 'https://docs.aws.amazon.com/step-functions/latest/dg/input-output-resultwriter.html';
const SFN_NESTED = 'https://docs.aws.amazon.com/step-functions/latest/dg/connect-stepfunctions.html';
const SFN_GUARANTEES = 'https://docs.aws.amazon.com/step-functions/latest/dg/express-at-least-once-execution.html';
const SFN_API = 'https://docs.aws.amazon.com/step-functions/latest/apireference';
const NESTED_EXPRESS_NOT_USED =
  'the stack nests its Express turn machine with aws-sdk:sfn:startSyncExecution (sfn.nested-express-sync-pattern), ' +
  'not startExecution.sync: what this says of the .sync pattern is not exercised';
const PROMPT_CACHING = 'https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html';
const PROFILES_SUPPORT = 'https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html';
const PROFILE_ROUTING =
  'When you invoke a cross-Region inference profile in Amazon Bedrock, your request originates from a source Region ' +
  'and is automatically routed to one of the destination Regions defined in that profile, optimizing for performance.';
const PROFILE_UNION =
  "The union of the destination Regions of the page's profiles of this geography, so that one list serves every " +
  'model of the prefix (a model whose profile routes elsewhere is deployed with -c bedrockRegions=...). Read ' +
  '2026-11-28: the stored copies of the page end before its per-profile tables, and the page now sends readers to ' +
  "each model's card for them; the list is the one Ariadne granted before, not re-read.";
const profileDestinations = (regions: readonly string[], note: string) => ({
  service: 'Bedrock' as const,
  value: regions,
  unit: 'destination Regions of the geographic inference profiles of this prefix',
  page: PROFILES_SUPPORT,
  quote: PROFILE_ROUTING,
  confirmed: false as const,
  note,
});

const CLAUDE_FIELDS = ['system', 'messages', 'tools'] as const;
const claude = (minTokens: number) => ({ minTokens, maxCheckpoints: 4, fields: CLAUDE_FIELDS });
const NOVA = { minTokens: 1_000, maxCheckpoints: 4, fields: ['system', 'messages'] } as const;

const FACTS = {
  'data-api.max-response-bytes': {
    service: 'RDS Data API',
    value: 1024 * 1024,
    page: DATA_API_LIMITS,
    quote:
      'The response size limit is 1 MiB. If the call returns more than 1 MiB of response data, the call is terminated.',
  },
  'data-api.max-row-bytes': {
    service: 'RDS Data API',
    value: 64 * 1024,
    page: DATA_API_LIMITS,
    quote:
      'The Data API size limit is 64 KB per row in the result set returned by the database. ' +
      'Make sure that each row in a result set is 64 KB or less.',
    note: 'KB read as 1,024 bytes; the page does not say which.',
  },
  'data-api.max-request-bytes': {
    service: 'RDS Data API',
    value: 4 * 1024 * 1024,
    page: 'https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_BatchExecuteStatement.html',
    quote:
      'However, the maximum size of the HTTP request submitted through the Data API is 4 MiB. ' +
      "If the request exceeds this limit, the Data API returns an error and doesn't process the request.",
  },
  'data-api.max-json-records-bytes': {
    service: 'RDS Data API',
    value: 10 * 1024 * 1024,
    page: EXECUTE_STATEMENT,
    quote:
      'The size limit for this field is currently 10 MB. If the JSON-formatted string representing the result set ' +
      'requires more than 10 MB, the call returns an error.',
    note:
      "Of formattedRecords, quoted from the API model's documentation of it (as the SDK's reference gives it); MB " +
      'read as 1,048,576 bytes, and the error is not named (the simulator answers ' +
      "BadRequestException, as for the 1 MiB response). The limitations page's 1 MiB a response is enforced for both " +
      'forms, so on the simulator this limit is met only by a response that is also over 1 MiB.',
  },
  'data-api.json-records-format': {
    service: 'RDS Data API',
    value: {
      columnMetadata: 'absent',
      records: 'absent',
      keys: 'column labels',
      integers: 'number',
      floats: 'number',
      decimal: 'string',
      boolean: 'true | false',
      binary: 'base64 string',
      array: 'array',
      null: 'null',
      other: 'string',
    },
    page: 'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api-json.html',
    quote:
      'The return value comes back as a JSON string in the formattedRecords field. In this case, the columnMetadata ' +
      'is null. The column labels are the keys of the object that represents each row. These column names are ' +
      'repeated for each row in the result set. The column values are quoted strings, numeric values, or special ' +
      'values representing true, false, or null.',
    confirmed: false,
    note:
      "The sentences are the page's; of its data type mapping table only the first rows could be re-read here " +
      '(INTEGER, TINYINT, SMALLINT, BIGINT: a number by default, a string with LongReturnType STRING; FLOAT, REAL, ' +
      'DOUBLE: a number). DECIMAL as a string by default is from API_ResultSetOptions ("The value of STRING, the ' +
      'default, specifies that it is converted to a String value"); booleans, base64 binary and arrays are the ' +
      "table's remaining rows as remembered, not re-read. The API reference: records and columnMetadata are each " +
      '"blank if the formatRecordsAs parameter is set to JSON".',
  },
  'data-api.transaction-idle-timeout-ms': {
    service: 'RDS Data API',
    value: 3 * 60_000,
    page: 'https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_BeginTransaction.html',
    quote:
      'A transaction times out if no calls use its transaction ID in three minutes. ' +
      "If a transaction times out before it's committed, it's rolled back automatically.",
    note: "Quoted from the API model's BeginTransaction documentation (the same text as the page).",
  },
  'data-api.transaction-max-ms': {
    service: 'RDS Data API',
    value: 24 * 3_600_000,
    page: 'https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_BeginTransaction.html',
    quote:
      'A transaction can run for a maximum of 24 hours. ' +
      'A transaction is terminated and rolled back automatically after 24 hours.',
  },
  'data-api.statement-timeout-ms': {
    service: 'RDS Data API',
    value: 45_000,
    page: 'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/data-api-timeouts.html',
    quote:
      "By default, the Data API cancels an operation and returns a timeout error if the operation doesn't finish " +
      'processing within 45 seconds.',
  },
  'aurora.auto-pause-min-seconds': {
    service: 'Aurora Serverless v2',
    value: 300,
    page: SCALING_CONFIG,
    quote:
      'Specify a value between 300 seconds (five minutes) and 86,400 seconds (one day). The default is 300 seconds.',
    notSimulated: 'a deploy-time setting RDS validates; the rehearsal does not deploy (bin/app.ts checks the range)',
  },
  'aurora.auto-pause-max-seconds': {
    service: 'Aurora Serverless v2',
    value: 86_400,
    page: SCALING_CONFIG,
    quote:
      'Specify a value between 300 seconds (five minutes) and 86,400 seconds (one day). The default is 300 seconds.',
    notSimulated: 'a deploy-time setting RDS validates; the rehearsal does not deploy (bin/app.ts checks the range)',
  },
  'aurora.resume-typical-ms': {
    service: 'Aurora Serverless v2',
    value: 15_000,
    page: AUTO_PAUSE,
    quote:
      'The time to resume is typically approximately 15 seconds if the instance was paused for less than 24 hours. ' +
      'If the instance is paused for longer than 24 hours, the resume time might be longer.',
    note: 'No upper bound is documented for a longer pause; the rehearsal picks its own (slow-resume-migration).',
  },
  'rds.delete-protected-cluster': {
    service: 'RDS',
    value: {
      code: 'InvalidParameterCombination',
      message: 'Cannot delete protected Cluster, please disable deletion protection and try again.',
    },
    page: 'https://docs.aws.amazon.com/AmazonRDS/latest/AuroraUserGuide/aurora-serverless.delete.html',
    quote:
      'If you try to delete a cluster that has this protection option enabled, you see the following error message. ' +
      'An error occurred (InvalidParameterCombination) when calling the DeleteDBCluster operation: Cannot delete ' +
      'protected Cluster, please disable deletion protection and try again.',
    note:
      'The page is Aurora Serverless v1\'s; API_ModifyDBCluster says the same of every DB cluster ("The database ' +
      'can\'t be deleted when deletion protection is enabled"), and users of Serverless v2 and provisioned clusters ' +
      'report the same code and message. The code is InvalidParameterCombination (HTTP 400), not ' +
      "InvalidDBClusterStateFault, the code DeleteDBCluster's reference lists for a cluster in the wrong state.",
  },
  'rds.deletion-protection-default': {
    service: 'RDS',
    value: false,
    page: 'https://docs.aws.amazon.com/AmazonRDS/latest/APIReference/API_ModifyDBCluster.html',
    quote:
      "Specifies whether the DB cluster has deletion protection enabled. The database can't be deleted when " +
      "deletion protection is enabled. By default, deletion protection isn't enabled.",
    note: "ModifyDBCluster's DeletionProtection parameter, read through the SDK's reference of the same text.",
  },
  'cloudformation.retain-except-on-create': {
    service: 'CloudFormation',
    value: { rollbackOfTheCreatingOperation: 'deleted', otherOperations: 'retained' },
    page: DELETION_POLICY,
    quote:
      'RetainExceptOnCreate behaves like Retain for stack operations, except for the stack operation that initially ' +
      'created the resource. If the stack operation that created the resource is rolled back, CloudFormation ' +
      'deletes the resource. For all other stack operations, such as stack deletion, CloudFormation retains the ' +
      'resource and its contents.',
    note:
      "Read through the CDK reference's CfnDeletionPolicy, which gives the page's option text. Retain keeps a " +
      'resource in a rollback too: it "also preserves resources that are deleted from stacks before serving ' +
      'traffic, such as the resources that are deleted immediately after creation during rollbacks" (What\'s New, ' +
      '2023-07-31, "AWS CloudFormation ... RetainExceptOnCreate").',
  },
  'cloudformation.default-deletion-policy': {
    service: 'CloudFormation',
    value: 'Delete',
    page: DELETION_POLICY,
    quote:
      'If a resource has no DeletionPolicy attribute, CloudFormation deletes the resource by default. ... ' +
      'Exception: The default policy is Snapshot for AWS::RDS::DBCluster resources and for AWS::RDS::DBInstance ' +
      "resources that don't specify the DBClusterIdentifier property.",
    note: 'Snapshot deletes the resource too, after a snapshot; the stack sets every DeletionPolicy itself.',
  },
  'cloudformation.rollback-complete': {
    service: 'CloudFormation',
    value: { status: 'ROLLBACK_COMPLETE', allowed: 'DeleteStack' },
    page: STACK_STATUS,
    quote:
      'Successful removal of one or more stacks after a failed stack creation or after an explicitly canceled stack ' +
      'creation. Any resources that were created during the create stack action are deleted. This status exists ' +
      'only after a failed stack creation. It signifies that all operations from the partially created stack have ' +
      'been appropriately cleaned up. When in this state, only a delete operation can be performed.',
    note: 'The stack status codes table (ROLLBACK_COMPLETE); a new CreateStack of its name needs it deleted first.',
  },
  'cloudformation.rollback-failed': {
    service: 'CloudFormation',
    value: 'ROLLBACK_FAILED',
    page: STACK_STATUS,
    quote:
      'Unsuccessful removal of one or more stacks after a failed stack creation or after an explicitly canceled ' +
      'stack creation. Delete the stack or view the stack events to see any associated error messages.',
    note: 'The stack status codes table (ROLLBACK_FAILED).',
  },
  'sfn.max-payload-bytes': {
    service: 'Step Functions',
    value: 256 * 1024,
    page: SFN_QUOTAS,
    quote:
      '256 KiB of data as a UTF-8 encoded string. This quota affects tasks (activity, Lambda function, or integrated ' +
      'service), state or execution output, and input data when scheduling a task, entering a state, or starting an ' +
      'execution.',
  },
  'sfn.max-name-chars': {
    service: 'Step Functions',
    value: 80,
    page: SFN_QUOTAS,
    quote: 'Names of state machines, executions, and activity tasks must not exceed 80 characters in length.',
  },
  'sfn.max-history-events': {
    service: 'Step Functions',
    value: 25_000,
    page: SFN_QUOTAS,
    quote:
      '25,000 events in a single state machine execution history. If the execution history reaches this quota, the ' +
      'execution will fail.',
  },
  'sfn.max-standard-execution-seconds': {
    service: 'Step Functions',
    value: 365 * 24 * 3600,
    page: SFN_QUOTAS,
    quote:
      '1 year. If an execution runs for more than the 1-year maximum, it will fail with a `States.Timeout` error and ' +
      'emit a `ExecutionsTimedOut` CloudWatch metric.',
    note: 'A year read as 365 days.',
    notSimulated: 'no rehearsal runs for a year; core/sweeps/sweep-capacity.ts refuses a sweep that could',
  },
  'sfn.max-map-run-child-executions': {
    service: 'Step Functions',
    value: 10_000,
    page: SFN_QUOTAS,
    quote: 'Maximum number of parallel Map Run child executions | 10,000 | Hard quota',
  },
  'sfn.item-reader-max-json-file-bytes': {
    service: 'Step Functions',
    value: 10 * 1024 ** 3,
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/input-output-itemreader.html',
    quote: '(not found: the ItemReader page was not in the stored copies searched)',
    confirmed: false,
    note:
      "A JSON file in S3 of up to 10 GB, as the rehearsal's author knew the figure; the page's current sentence " +
      'could not be read here. Check it there.',
  },
  'sfn.send-task-success-max-output-bytes': {
    service: 'Step Functions',
    value: 262_144,
    page: 'https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html',
    quote: 'Length Constraints: Maximum length of 262144.',
    note: "The output parameter's constraint, as the simulator's comment cited it (in bytes of UTF-8).",
  },
  'sfn.max-task-token-chars': {
    service: 'Step Functions',
    value: 2048,
    page: 'https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html',
    quote: 'Length Constraints: Minimum length of 1. Maximum length of 2048.',
  },
  'sfn.list-executions-max-results': {
    service: 'Step Functions',
    value: 1000,
    page: 'https://docs.aws.amazon.com/step-functions/latest/apireference/API_ListExecutions.html',
    quote: 'The default is 100 and the maximum allowed page size is 1000. A value of 0 uses the default.',
    note: "Read on GetExecutionHistory's page, which words its maxResults the same; ListExecutions' not re-read.",
  },
  'sfn.lambda-service-exception-retry': {
    service: 'Step Functions',
    value: { intervalSeconds: 2, maxAttempts: 6, backoffRate: 2 },
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/sfn-best-practices.html#bp-lambda-serviceexception',
    quote: '"IntervalSeconds": 2, "MaxAttempts": 6, "BackoffRate": 2',
    note:
      "The Retry the page recommends for Lambda's transient service exceptions (its example, read through " +
      'reproductions of the page).',
    notSimulated: 'a recommendation, not a limit: the rehearsal runs whatever Retry the template has',
  },
  'lambda.max-timeout-seconds': {
    service: 'Lambda',
    value: 900,
    page: LAMBDA_QUOTAS,
    quote: 'Function timeout | 900 seconds (15 minutes)',
    notSimulated: "the rehearsal stops each function at its template's timeout; CDK refuses one over 15 minutes",
  },
  'lambda.sync-max-request-bytes': {
    service: 'Lambda',
    value: 6_291_456,
    page: LAMBDA_QUOTAS,
    quote: '6 MB each for request and response (synchronous)',
    confirmed: false,
    note:
      'The page says 6 MB; the exact count is from Invoke\'s error, "Request must be smaller than 6291456 bytes for ' +
      'the InvokeFunction operation", as users report it (not on AWS\'s pages).',
  },
  'lambda.sync-max-response-bytes': {
    service: 'Lambda',
    value: 6_291_556,
    page: LAMBDA_QUOTAS,
    quote: '6 MB each for request and response (synchronous)',
    confirmed: false,
    note:
      'The page says 6 MB; the exact count is from the error Lambda gives, "Response payload size ... ' +
      'exceeded maximum allowed payload size (6291556 bytes)", as users report it (not on AWS\'s pages).',
  },
  'lambda.default-concurrent-executions': {
    service: 'Lambda',
    value: 1000,
    page: LAMBDA_QUOTAS,
    quote: 'Concurrent executions | 1,000 | Tens of thousands',
    note: 'New AWS accounts have reduced concurrency and memory quotas (same page).',
  },
  'lambda.max-zipped-package-bytes': {
    service: 'Lambda',
    value: 50 * 1024 * 1024,
    page: LAMBDA_QUOTAS,
    quote: '50 MB (zipped, when uploaded through the Lambda API or SDKs).',
    note: 'MB as the page defines it: "MB (rather than MiB) to refer to 1,024 KB".',
  },
  'lambda.max-unzipped-package-bytes': {
    service: 'Lambda',
    value: 250 * 1024 * 1024,
    page: LAMBDA_QUOTAS,
    quote: '250 MB The maximum size of the contents of a deployment package, including layers and custom runtimes.',
  },
  'lambda.code-storage-bytes': {
    service: 'Lambda',
    value: 300 * 1024 ** 3,
    page: LAMBDA_QUOTAS,
    quote:
      'Storage for uploaded functions (.zip file archives) and layers using Lambda-managed storage. ' +
      '... 300 GB (unzipped)',
    note: 'Earlier versions of the page gave 75 GB.',
  },
  'bedrock.runtime-quotas-tokens-only': {
    service: 'Bedrock',
    value: true,
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html',
    quote:
      'Amazon Bedrock no longer enforces requests-per-minute (RPM) quotas on the bedrock-runtime endpoint. ' +
      'Throttling is governed by the token-based quotas',
    note:
      'The page names the per-model quotas "Cross-Region InvokeModel tokens per minute for ${model}", "On-demand ' +
      'InvokeModel tokens per minute for ${model}" and "Model invocation max tokens per day for ${model}", input and ' +
      'output counted together. Read through a copy of the page; its last words are cut there.',
    notSimulated:
      "a quota the Service Quotas simulator lists is data; what a sweep defaults to from it is the CLI's " +
      '(bin/cli/bedrock-quotas.ts takes the tokens-per-minute quota alone, citing this fact); the Bedrock ' +
      'simulator throttles only where a test sets a limit',
  },
  'bedrock.thinking-min-budget-tokens': {
    service: 'Bedrock',
    value: 1024,
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html',
    quote: 'The minimum budget is 1,024 tokens.',
  },
  'bedrock.converse-max-images-per-message': {
    service: 'Bedrock',
    value: 20,
    page: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html',
    quote:
      "You can include up to 20 images. Each image's size, height, and width must be no more than 3.75 MB, 8000 px, " +
      'and 8000 px, respectively.',
  },
  'bedrock.converse-max-image-px': {
    service: 'Bedrock',
    value: 8000,
    page: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html',
    quote:
      "You can include up to 20 images. Each image's size, height, and width must be no more than 3.75 MB, 8000 px, " +
      'and 8000 px, respectively.',
  },
  'bedrock.prompt-cache-default-ttl-ms': {
    service: 'Bedrock',
    value: 5 * 60_000,
    page: PROMPT_CACHING,
    quote: 'If no `ttl` value is provided, the default 5-minute caching behavior applies.',
  },
  'bedrock.prompt-cache-ttl-reset-on-hit': {
    service: 'Bedrock',
    value: true,
    page: PROMPT_CACHING,
    quote: 'The cache has a Time To Live (TTL), which resets with each successful cache hit.',
  },
  'bedrock.prompt-cache-checkpoint-order': {
    service: 'Bedrock',
    value: ['tools', 'system', 'messages'],
    page: PROMPT_CACHING,
    quote:
      'Cache checkpoints are processed in this order: `tools` → `system` → `messages`. The minimum cache size is ' +
      'evaluated against the cumulative tokens across all three sections combined, not each section individually.',
  },
  'bedrock.prompt-cache-minimum-per-checkpoint': {
    service: 'Bedrock',
    value: 'n-th checkpoint needs n times the minimum',
    page: PROMPT_CACHING,
    quote:
      'That means that for a model with a 1,024-token minimum, your first cache checkpoint can be defined ' +
      'after 1,024 tokens and your second cache checkpoint can be defined after 2,048 tokens. ' +
      'If you try to add a cache checkpoint before meeting the minimum number of tokens, ' +
      'your inference will still succeed, but your prefix will not be cached.',
  },
  'bedrock.prompt-cache-models': {
    service: 'Bedrock',
    value: {
      'anthropic.claude-opus-4-5-20251101-v1:0': claude(4_096),
      'anthropic.claude-opus-4-6-v1': claude(4_096),
      'anthropic.claude-sonnet-4-5-20250929-v1:0': claude(4_096),
      'anthropic.claude-sonnet-4-6': claude(1_024),
      'anthropic.claude-haiku-4-5-20251001-v1:0': claude(4_096),
      'anthropic.claude-opus-4-20250514-v1:0': claude(1_024),
      'anthropic.claude-3-7-sonnet-20250219-v1:0': claude(1_024),
    },
    unit: 'tokens per checkpoint, checkpoints per request',
    page: PROMPT_CACHING,
    quote:
      'The following table lists the supported models along with their token minimums, maximum number of cache ' +
      'checkpoints, and fields that allow cache checkpoints.',
    note:
      'The Generally Available rows of the table (Claude 3.5 Sonnet v2 is a Preview, left out). "For more granular ' +
      'control, you can still use multiple cache checkpoints (up to 4 for Claude models)".',
  },
  'bedrock.prompt-cache-models-earlier': {
    service: 'Bedrock',
    value: {
      'anthropic.claude-opus-4-1-20250805-v1:0': claude(1_024),
      'anthropic.claude-sonnet-4-20250514-v1:0': claude(1_024),
      'anthropic.claude-3-5-haiku-20241022-v1:0': claude(2_048),
      'amazon.nova-micro-v1:0': NOVA,
      'amazon.nova-lite-v1:0': NOVA,
      'amazon.nova-pro-v1:0': NOVA,
      'amazon.nova-premier-v1:0': NOVA,
    },
    unit: 'tokens per checkpoint, checkpoints per request',
    page: PROMPT_CACHING,
    quote: '(not on the current page: these rows are from its earlier table)',
    confirmed: false,
    note:
      "Rows of the page's earlier table as third-party copies reproduce it (Claude Opus 4.1 and Sonnet 4: 1,024; " +
      'Claude 3.5 Haiku: 2,048; Amazon Nova: 1K, system and messages only, at most 20K tokens cached); the current ' +
      'page sends these models to their model cards.',
  },
  'bedrock.global-profile-saving': {
    service: 'Bedrock',
    value: 0.1,
    unit: 'fraction of the geographic profile price a global profile saves, input and output tokens alike',
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html',
    quote:
      "Global cross-Region inference for Anthropic's Claude Sonnet 4.5 offers approximately 10% savings on both " +
      'input and output token pricing compared to geographic cross-Region inference.',
    note:
      'Read 2026-11-28. The cross-Region inference page (https://docs.aws.amazon.com/bedrock/latest/userguide/' +
      'cross-region-inference.html) gives the same in its comparison table: geographic "Standard pricing", global ' +
      '"Approximately 10% savings". The sentence names Sonnet 4.5; Ariadne applies it to every model with a global ' +
      'profile (core/config/model-table.ts). Third parties give the geographic price as 10% above the global one ' +
      '(https://clauder-navi.com/en/bedrock-claude-cost/), which is a 9.1% saving: "approximately 10%" covers both.',
    notSimulated:
      'a price, not a behaviour: the Bedrock simulator bills nothing; core/config/model-table.ts prices each ' +
      'profile kind from it',
  },
  'bedrock.profile-destinations-us': profileDestinations(
    ['us-east-1', 'us-east-2', 'us-west-1', 'us-west-2'],
    PROFILE_UNION,
  ),
  'bedrock.profile-destinations-us-gov': profileDestinations(['us-gov-east-1', 'us-gov-west-1'], PROFILE_UNION),
  'bedrock.profile-destinations-ca': profileDestinations(['ca-central-1', 'ca-west-1'], PROFILE_UNION),
  'bedrock.profile-destinations-eu': profileDestinations(
    ['eu-central-1', 'eu-central-2', 'eu-north-1', 'eu-south-1', 'eu-south-2', 'eu-west-1', 'eu-west-2', 'eu-west-3'],
    PROFILE_UNION,
  ),
  'bedrock.profile-destinations-apac': profileDestinations(
    [
      'ap-northeast-1',
      'ap-northeast-2',
      'ap-northeast-3',
      'ap-south-1',
      'ap-south-2',
      'ap-southeast-1',
      'ap-southeast-2',
      'ap-southeast-3',
      'ap-southeast-4',
    ],
    PROFILE_UNION,
  ),
  'bedrock.profile-destinations-jp': profileDestinations(
    ['ap-northeast-1', 'ap-northeast-3'],
    `${PROFILE_UNION} A third party lists the same for jp.anthropic.claude-opus-5-5 from list-inference-profiles ` +
      '(https://dev.classmethod.jp/en/articles/bedrock-claude-opus-5-5/, 2026-09-23).',
  ),
  'bedrock.profile-destinations-au': profileDestinations(
    ['ap-southeast-2', 'ap-southeast-4', 'ap-southeast-6'],
    `${PROFILE_UNION} Auckland (ap-southeast-6) added from a third party: "AU geographic profile — routes only ` +
      'inside the ANZ footprint: ap-southeast-6 (Auckland), ap-southeast-2 (Sydney) and ap-southeast-4 ' +
      '(Melbourne)" (https://saipien.org/?p=7436).',
  ),
  'bedrock.profile-destinations-global': {
    service: 'Bedrock',
    value: 'all commercial Regions',
    page: PROFILES_SUPPORT,
    quote: 'The destination Regions for Global cross-Region inference profiles include all commercial Regions.',
    note:
      'Read 2026-11-28. Not a list: a global profile is authorized by the Region-less model ARN ' +
      "(arn:aws:bedrock:::foundation-model/ID) and the source Region's model (global-cross-region-inference.html).",
    notSimulated:
      "iam-simulate matches no resource type to a Region-less ARN, so the rehearsal's authorizer checks a global " +
      "profile on the source Region's model only; lib/bedrock.ts grants the Region-less ARN",
  },
  'iam.user-inline-policy-chars': {
    service: 'IAM',
    value: 2048,
    unit: 'characters, white space not counted, of all the inline policies of one IAM user together',
    page: IAM_QUOTAS,
    quote: 'User policy size cannot exceed 2,048 characters.',
    confirmed: false,
    note: IAM_QUOTAS_NOTE,
    notSimulated: RESEARCHER_POLICY_CHECK,
  },
  'iam.managed-policy-chars': {
    service: 'IAM',
    value: 6144,
    unit: 'characters, white space not counted, of one managed policy',
    page: IAM_QUOTAS,
    quote: 'The size of each managed policy cannot exceed 6,144 characters.',
    confirmed: false,
    note: IAM_QUOTAS_NOTE,
    notSimulated: RESEARCHER_POLICY_CHECK,
  },
  'ssm.get-parameters-by-path-max-results': {
    service: 'Systems Manager',
    value: 10,
    page: 'https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParametersByPath.html',
    quote: 'Valid Range: Minimum value of 1. Maximum value of 10.',
    note: "MaxResults' range as the SDK's API model gives it; the page itself was not re-read here.",
  },
  'ssm.path-read-covers-levels-below': {
    service: 'Systems Manager',
    value: true,
    page: 'https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParametersByPath.html',
    quote:
      'If a user has access to a path, then the user can access all levels of that path. For example, if a user has ' +
      'permission to access path /a, then the user can also access /a/b. Even if a user has explicitly been denied ' +
      'access in IAM for parameter /a/b, they can still call the GetParametersByPath API operation recursively ' +
      'for /a and view /a/b.',
    note:
      'Why the API keys live under <prefix>-secrets, beside the settings and not below them: a grant to read the ' +
      'settings by path would read every key below it (core/config/secrets.ts).',
  },
  'ssm.max-value-bytes-advanced': {
    service: 'Systems Manager',
    value: 8 * 1024,
    page: 'https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html',
    quote: 'Maximum size of parameter value | 4 KB | 8 KB',
    note: 'Standard tier 4 KB, advanced tier 8 KB.',
    notSimulated: 'the Parameter Store simulator only reads; CloudFormation writes the parameters on deploy',
  },
  'ssm.put-parameter-tps': {
    service: 'Systems Manager',
    value: 3,
    page: 'https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-throughput.html',
    quote:
      'Parameter Store throughput defines the number of API transactions per second (TPS) that Systems Manager can ' +
      'process for GetParameter, GetParameters, and PutParameter API calls for your AWS account and Region',
    confirmed: false,
    note:
      "The figure 3 is AWS Support's, quoted in philips-labs/terraform-aws-github-runner issue 2944 " +
      '("the TPS for PutParameter Action is only 3 TPS with standard throughput"); the quotas page ' +
      '(general/latest/gr/ssm.html) was not read.',
    notSimulated: 'the rehearsal does not deploy; lib/parameters.ts creates the parameters in this many chains',
  },
  'service-quotas.list-max-results': {
    service: 'Service Quotas',
    value: 100,
    page: 'https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html',
    quote: 'Valid Range: Minimum value of 1. Maximum value of 100.',
    note: "MaxResults' range as the SDK's API model gives it; the page itself was not re-read here.",
  },
  'cloudformation.stable-stack-statuses': {
    service: 'CloudFormation',
    value: [
      'CREATE_COMPLETE',
      'UPDATE_COMPLETE',
      'UPDATE_ROLLBACK_COMPLETE',
      'IMPORT_COMPLETE',
      'IMPORT_ROLLBACK_COMPLETE',
    ],
    page: 'https://docs.aws.amazon.com/AWSCloudFormation/latest/APIReference/API_RollbackStack.html',
    quote:
      "This operation will delete a stack if it doesn't contain a last known stable state. A last known stable " +
      'state includes any status in a *_COMPLETE. This includes the following stack statuses.',
    note:
      'The statuses whose outputs describe working resources. The stack status codes table (the page of ' +
      'cloudformation.rollback-complete) adds UPDATE_COMPLETE_CLEANUP_IN_PROGRESS, the removal of old resources ' +
      'after a successful update, its new ones in place; that row was not re-read here.',
    notSimulated:
      'the CloudFormation simulator reports whatever status a test gives a stack; bin/cli/aws-stack.ts reads these ' +
      'as the statuses whose outputs it uses',
  },
  'cloudwatch.custom-metric-hourly-proration': {
    service: 'CloudWatch',
    value: 'hour',
    unit: 'a custom metric is billed per metric-hour, and only while data is sent',
    page: 'https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_billing.html',
    quote:
      'Similar to custom metrics, detailed monitoring is prorated by the hour and metered only when data is sent to ' +
      'CloudWatch',
    note:
      'Quoted as bench/prices.ts had it (read 2026-11-25); the stored copies searched here did not hold the page. ' +
      'The same page: "Embedded metrics generate costs by the number of logs ingested, number of logs archived, ' +
      'and number of custom metrics generated".',
    notSimulated: 'a price, not a behaviour: bench/prices.ts prorates the metric-month by the hour from it',
  },
  'sfn.timeout-seconds-unset': {
    service: 'Step Functions',
    value: 'no timeout',
    unit: 'what a state machine or a Task without TimeoutSeconds waits',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/sfn-stuck-execution.html',
    quote:
      "By default, the Amazon States Language doesn't specify timeouts for state machine definitions. Without an " +
      'explicit timeout, Step Functions often relies solely on a response from an activity worker to know that a ' +
      "task is complete. If something goes wrong and the TimeoutSeconds field isn't specified for an Activity or " +
      'Task state, an execution is stuck waiting for a response that will never come.',
    note:
      'The same page: "You can set a timeout for your state machine using the TimeoutSeconds field in your Amazon ' +
      'States Language definition." A state-level TimeoutSeconds is a Task\'s (state-task.html); a Map state has ' +
      "none (asl-validator's Map schema and CDK's DistributedMap have no such field).",
    notSimulated:
      "the rehearsal runs the template's own TimeoutSeconds; core/sweeps/sweep-capacity.ts bounds a sweep by the " +
      "machine's and each iteration's",
  },
  'sfn.distributed-map-actions': {
    service: 'Step Functions',
    value: {
      stateMachine: ['states:StartExecution'],
      execution: ['states:DescribeExecution', 'states:StopExecution'],
    },
    unit: 'IAM actions of the state machine role, on the machine and on its executions',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/iam-policies-eg-dist-map.html',
    quote:
      'When you include a Distributed Map state in your workflows, Step Functions needs appropriate permissions to ' +
      'allow the state machine role to invoke the StartExecution API action for the Distributed Map state.',
    note:
      "The actions are the example policy's that follows: states:StartExecution on the state machine, " +
      'states:DescribeExecution and states:StopExecution on its executions. A later copy of the page ' +
      '(docs.aws.amazon.com via rproxy.govskope.ca) lists states:DescribeExecution alone on the executions.',
  },
  'sfn.result-writer-files': {
    service: 'Step Functions',
    value: { statuses: ['FAILED', 'PENDING', 'SUCCEEDED'], file: '<STATUS>_0.json', manifest: 'manifest.json' },
    page: RESULT_WRITER,
    quote:
      'Step Functions consolidates all child workflow execution data, such as execution input and output, ARN, and ' +
      'execution status. It then exports executions with the same status to their respective files in the ' +
      'specified Amazon S3 location.',
    confirmed: false,
    note:
      "The sentence is the page's; the file names are from a third party's listing of a real export " +
      '(hacklines.com, "AWS Step Functions Distributed Map ResultWriter Example": manifest.json naming ' +
      "SUCCEEDED_0.json and the others with their sizes, under <Prefix>/<map run id>/), the page's own example " +
      'not being in the stored copies.',
  },
  'sfn.express-max-execution-seconds': {
    service: 'Step Functions',
    value: 5 * 60,
    page: SFN_QUOTAS,
    quote:
      '5 minutes. If an execution runs for more than the 5-minute maximum, it will fail with a `States.Timeout` ' +
      'error ' +
      'and emit a `ExecutionsTimedOut` CloudWatch metric.',
    note:
      'The Express column of "Quotas related to state machine executions" (hard quotas); the task-executions table ' +
      'gives "5 minutes — Constrained by maximum execution time." for a task and for the time a task waits in the ' +
      'queue. choosing-workflow-type.html: "They can run for up to five minutes." What the .sync parent\'s Task ' +
      'receives when its Express child times out (error name, cause) is not documented.',
  },
  'sfn.express-execution-semantics': {
    service: 'Step Functions',
    value: { standard: 'exactly-once', asynchronousExpress: 'at-least-once', synchronousExpress: 'at-most-once' },
    unit: 'workflow execution guarantee of each workflow type',
    page: SFN_GUARANTEES,
    quote: 'Exactly-once workflow execution | At-least-once workflow execution | At-most-once workflow execution',
    note:
      'The first row of the "Execution guarantees" table (Standard | Asynchronous Express | Synchronous Express). ' +
      'Its ' +
      'Asynchronous Express column goes on: "Execution state doesn\'t persist between state transitions." and ' +
      '"Idempotency is not automatically managed. Starting multiple workflows with the same name results in ' +
      'concurrent executions. Can result in loss of internal workflow state if state machine logic is not ' +
      'idempotent." An earlier copy of the page: "In rare cases, the internal state of a workflow can be lost, and ' +
      'the workflow will be automatically restarted from beginning. You should ensure your state machine logic is ' +
      'idempotent and should not be affected adversely by multiple concurrent executions of the same input." ' +
      'choosing-workflow-type.html: "Express Workflows employ an at-least-once model, where an execution could ' +
      'potentially run more than once." The stack\'s chunks are started with StartSyncExecution ' +
      '(sfn.nested-express-sync-pattern): at-most-once each, but a retried RunChunk starts a second, and a Lambda ' +
      "Task retried inside a chunk runs its turn again, so each turn must be idempotent (the rehearsal's " +
      'duplicate-delivery scenario).',
  },
  'sfn.start-execution-sync-express': {
    service: 'Step Functions',
    value: {
      resource: 'arn:aws:states:::states:startExecution.sync:2',
      parentWaits: 'until the child execution completes',
      output: { 'startExecution.sync': 'String', 'startExecution.sync:2': 'JSON' },
      expressChild: 'asynchronous Express execution',
    },
    page: SFN_NESTED,
    quote: 'Both will wait for the nested state machine to complete, but they return different `Output` formats.',
    note:
      'After the page\'s table "startExecution.sync | String", "startExecution.sync:2 | JSON": a child returning ' +
      '{ "MyKey": "MyValue" } gives "Output": "{ \\"MyKey\\": \\"MyValue\\" }" with .sync and "Output": { "MyKey": ' +
      '"MyValue" } with .sync:2, beside <other fields>. That an Express child may be waited for this way rests on ' +
      'AWS pages that show it rather than say it: concepts-express-synchronous.html ("You can start Asynchronous ' +
      'Express Workflows in response to an event, by a nested workflow in Step Functions, or by using the ' +
      'StartExecution API call."), cost-opt-exp-workflows.html ("You can nest this Express workflow within the ' +
      'Standard workflow.") and the guide\'s selective checkpointing sample, whose Standard parent starts its ' +
      'Express child with "arn:<PARTITION>:states:::states:startExecution.sync" (awsdocs/' +
      'aws-step-functions-developer-guide, doc_source/sample-project-express-selective-checkpointing.md, 2022). ' +
      "How the parent learns of an Express child's end is not said: it polls DescribeExecution " +
      '(sfn.sync-describe-execution-polling), which Express executions do not support ' +
      '(sfn.express-describe-execution), and EventBridge carries "events from Step Functions standard workflows" ' +
      "(eventbridge-integration.html). The Task's result counts against sfn.max-payload-bytes like any other.",
    notSimulated: NESTED_EXPRESS_NOT_USED,
  },
  'sfn.sync-start-execution-iam': {
    service: 'Step Functions',
    value: {
      stateMachine: ['states:StartExecution'],
      execution: ['states:DescribeExecution', 'states:StopExecution'],
      rule: ['events:PutTargets', 'events:PutRule', 'events:DescribeRule'],
      ruleName: 'StepFunctionsGetEventsForStepFunctionsExecutionRule',
    },
    unit: 'IAM actions of the parent role: on the child machine, on its executions, on the managed EventBridge rule',
    page: `${SFN_NESTED}#stepfunctions-iam`,
    quote:
      'A parent state machine determines if a child state machine has completed execution using polling and events. ' +
      'Polling requires permission for `states:DescribeExecution` while events sent through EventBridge to Step ' +
      'Functions require permissions for `events:PutTargets`, `events:PutRule`, and `events:DescribeRule`. If these ' +
      'permissions are missing from your IAM role, there may be a delay before a parent state machine becomes aware ' +
      "of the completion of the child state machine's execution.",
    note:
      "The page's Synchronous policy: states:StartExecution on " +
      'arn:aws:states:<region>:<account>:stateMachine:<name>, ' +
      'states:DescribeExecution and states:StopExecution on arn:aws:states:<region>:<account>:execution:<name>:*, ' +
      'and the three events actions on arn:aws:events:<region>:<account>:rule/' +
      'StepFunctionsGetEventsForStepFunctionsExecutionRule; the Asynchronous one has states:StartExecution alone. ' +
      '"In the policy for Synchronous, note that `states:StartExecution` requires a state machine ARN whereas ' +
      '`states:DescribeExecution` and `states:StopExecution` require an execution ARN." (stepfunctions-iam.html, ' +
      'which ' +
      'the brief named, now serves this page.) The page makes no exception for an Express child, though neither ' +
      'DescribeExecution nor StopExecution supports Express executions (sfn.express-describe-execution, ' +
      'sfn.express-stop-execution).',
    notSimulated: NESTED_EXPRESS_NOT_USED,
  },
  'sfn.sync-describe-execution-polling': {
    service: 'Step Functions',
    value: {
      sameAccount: ['EventBridge events', 'DescribeExecution polling'],
      crossAccount: ['DescribeExecution polling'],
    },
    unit: 'how a startExecution.sync Task follows its child',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-sync',
    quote:
      'For `.sync` invocations within the same account, Step Functions uses EventBridge events and polls the APIs ' +
      'that you specify in the `Task` state. For cross-account `.sync` invocations, Step Functions only uses ' +
      'polling. ' +
      'For example, for `states:StartExecution.sync`, Step Functions performs polling on the DescribeExecution API ' +
      'and ' +
      'uses your assigned quota.',
    note:
      "The polling draws on the account's DescribeExecution bucket (service-quotas.html: bucket 300, refill 15 per " +
      'second in US East (N. Virginia), US West (Oregon) and Europe (Ireland); 250 and 10 elsewhere), shared with ' +
      'every other caller of DescribeExecution.',
    notSimulated: NESTED_EXPRESS_NOT_USED,
  },
  'sfn.express-describe-execution': {
    service: 'Step Functions',
    value: 'not supported, unless a Map Run dispatched the execution',
    unit: 'DescribeExecution of an Express execution',
    page: `${SFN_API}/API_DescribeExecution.html`,
    quote:
      "Executions of an `EXPRESS` state machine aren't supported by `DescribeExecution` unless a Map Run " +
      'dispatched them.',
    note:
      "Read in the page's markdown copy (API_DescribeExecution.md) and the CLI reference, which words it alike. " +
      'DescribeStateMachineForExecution: "This API action is not supported by EXPRESS state machines."',
  },
  'sfn.express-stop-execution': {
    service: 'Step Functions',
    value: 'not supported',
    unit: 'StopExecution of an Express execution',
    page: `${SFN_API}/API_StopExecution.html`,
    quote: 'This API action is not supported by `EXPRESS` state machines.',
    note:
      'Read in the docs.amazonaws.cn copy of the page (API_StopExecution.md) and the SDK references that carry it. ' +
      'connect-to-resource.html: "Step Functions will make a best-effort attempt to cancel the task. For example, if ' +
      'a Step Functions `states:startExecution.sync` task is aborted, it will call the Step Functions ' +
      '`StopExecution` API action." For an Express child that call is one the API does not support: a parent that ' +
      'is stopped, or times its Task out, should be assumed to leave the child running to its end or its 5 minutes.',
    notSimulated:
      'the stack never stops a chunk: RunChunk timed out leaves it to run on, and its turns go on in the Standard ' +
      'execution (lib/run-chunk.ts); a turn commits once (test/nested-orchestration.test.ts)',
  },
  'sfn.express-history': {
    service: 'Step Functions',
    value: { stepFunctionsHistory: false, cloudWatchLogs: 'if logging is enabled', getExecutionHistory: false },
    unit: "where an Express execution's history can be read",
    page: SFN_GUARANTEES,
    quote:
      'Execution history is not captured by Step Functions. Logging must be enabled through Amazon CloudWatch Logs.',
    note:
      "The page's last row, for both Express types. service-quotas.html (execution history retention, Express): " +
      '"To see execution history, Amazon CloudWatch Logs logging must be configured." API_GetExecutionHistory: ' +
      '"This API action is not supported by EXPRESS state machines." (as the API reference and CLI give it).',
    notSimulated: 'no simulator writes logs: test/nested-orchestration-stack.test.ts checks the turn machine logs',
  },
  'sfn.express-integration-patterns': {
    service: 'Step Functions',
    value: ['Request Response'],
    unit: 'service integration patterns an Express workflow may use (no .sync, no .waitForTaskToken)',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/integrate-optimized.html',
    quote: 'Express Workflows only support Request Response integrations.',
    note:
      'After "Standard Workflows and Express Workflows support the same integrations but not the same integration ' +
      'patterns." and "Standard Workflows support Request Response integrations. Certain services support Run a Job ' +
      '(.sync), or Wait for Callback (.waitForTaskToken) , and both in some cases." The guide\'s 2022 comparison ' +
      'table: "Express Workflows do not support ' +
      'Job-run (.sync) or Callback (.waitForTaskToken) service integration patterns." (concepts-standard-vs-express, ' +
      'now choosing-workflow-type.html), and Express "Does not support Step Functions activities." So the Express ' +
      'child cannot itself wait on a .sync child or a task token.',
  },
  'sfn.express-start-execution-bucket': {
    service: 'Step Functions',
    value: { bucketSize: 6_000, refillPerSecond: 6_000 },
    unit: 'StartExecution token bucket for Express, per account and Region, every Region',
    page: `${SFN_QUOTAS}#service-limits-api-action-throttling-general`,
    quote:
      'StartExecution — US East (N. Virginia), US West (Oregon), and Europe (Ireland) | 1,300 | 300 | 6,000 | 6,000',
    note:
      'Columns: Standard bucket, refill; Express bucket, refill. "All other regions | 800 | 150 | 6,000 | 6,000". ' +
      'Soft quotas: "Throttling quotas are per account, per AWS Region." Which bucket a Task\'s startExecution of an ' +
      'Express machine draws on is not said. concepts-nested-workflows.html: "The `StartExecution` API action ' +
      'quotas can limit the number of executions that you can start. Use the `Retry` on ' +
      '`StepFunctions.ExecutionLimitExceeded` to ensure your execution is started." A retried start may start a ' +
      'second child (sfn.express-execution-semantics: names do not deduplicate Express executions).',
    notSimulated:
      'no throttling is simulated: RunChunk retries Sfn.ThrottlingException (core/machine/states.ts CHUNK_START_RETRY)',
  },
  'sfn.express-redrive': {
    service: 'Step Functions',
    value: 'not supported',
    unit: 'redrive of an Express execution',
    page: SFN_QUOTAS,
    quote: 'Redrive is not supported for Express workflows.',
    note:
      'The Express column of "Execution redrivable period" (Standard: 14 days). So a failed Express chunk can only ' +
      "be run again as a new execution (by the Standard parent's Retry, or by redriving the parent, which reruns its " +
      'failed Task): inferred, not said.',
    notSimulated:
      'nothing redrives a chunk: one that does not succeed leaves its turns to the Standard execution ' +
      '(lib/run-chunk.ts)',
  },
  'sfn.express-billing-increments': {
    service: 'Step Functions',
    value: { durationMs: 100, memoryMb: 64 },
    unit: 'what an Express execution is billed in: duration rounded up to, memory in chunks of',
    page: 'https://aws.amazon.com/step-functions/pricing/',
    quote:
      'Duration is calculated from the time your workflow begins executing until it completes or otherwise ' +
      'terminates, rounded up to the nearest 100ms, and the amount of memory used in the execution of your workflow, ' +
      'billed in 64-MB chunks.',
    note:
      'The pricing example estimates "Workflow memory utilized = 50 MB + state machine definition size + execution ' +
      'data size x Number of Parallel or Map Steps", so a small machine is billed one 64 MB chunk.',
  },
  'sfn.nested-express-sync-pattern': {
    service: 'Step Functions',
    value: 'arn:aws:states:::aws-sdk:sfn:startSyncExecution',
    unit: 'the Task resource a workflow starts a nested Express workflow with and waits on',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/concepts-cross-acct-sync-pattern.html',
    quote:
      "For nested Express Workflows, arn:aws:states:::states:startExecution.sync isn't currently supported. Use " +
      'arn:aws:states:::aws-sdk:sfn:startSyncExecution instead.',
    note:
      'A note on the page "Cross-account access for .sync integration pattern"; its wording is not limited to ' +
      'cross-account calls. The Express child is then a Synchronous Express execution (at-most-once: ' +
      'sfn.express-execution-semantics).',
  },
  'sfn.aws-sdk-error-names': {
    service: 'Step Functions',
    value: { error: 'ServiceName.ErrorName', stepFunctionsPrefix: 'Sfn', parameters: 'PascalCase' },
    unit: 'how an AWS SDK integration Task names the API errors it gets, and spells the API parameters',
    page: 'https://docs.aws.amazon.com/step-functions/latest/dg/supported-services-awssdk.html',
    quote:
      'If an AWS SDK integration encounters an error, the resulting Error field will be composed of the service name ' +
      'and the error name, separated by a period character: `ServiceName.ErrorName`. Both the service name and error ' +
      'name are in Pascal case.',
    note:
      "Read in the page's source (awsdocs/aws-step-functions-developer-guide, " +
      'doc_source/supported-services-awssdk.md), whose table gives "AWS Step Functions | ' +
      'arn:aws:states:::aws-sdk:sfn:[apiAction] | ... | Sfn" as the exception prefix. The same page: "The API action ' +
      'will always be camel case, and parameter names will be Pascal case. For example, you could use Step ' +
      'Functions\' `startSyncExecution` API action and specify the parameter `StateMachineArn`." and "Step ' +
      "Functions can't autogenerate IAM policies for AWS SDK integrations.\" That the Task's result is the API's " +
      "response in PascalCase too (Status, Output) is how the integrations answer in AWS's " +
      'examples, not a sentence of this page.',
  },
  'sfn.start-sync-execution-iam': {
    service: 'Step Functions',
    value: { action: 'states:StartSyncExecution', resource: 'stateMachine' },
    unit: 'the IAM action a caller of StartSyncExecution needs, and the resource it is granted on',
    page: 'https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html',
    quote: 'StartSyncExecution | Grants permission to start a Synchronous Express state machine execution',
    note:
      'The Service Authorization Reference lists the action with the stateMachine resource type (required). The API ' +
      'reference (API_StartSyncExecution.html): "Starts a Synchronous Express state machine execution. ' +
      'StartSyncExecution is not available for STANDARD workflows." A Task calling it through the AWS SDK ' +
      'integration ' +
      "calls it with the state machine's role, which the stack grants by hand (sfn.aws-sdk-error-names: no policy is " +
      'generated for SDK integrations).',
  },
  'lambda.get-account-settings-request': {
    service: 'Lambda',
    value: { method: 'GET', path: '/2016-08-19/account-settings/' },
    page: 'https://docs.aws.amazon.com/lambda/latest/api/API_GetAccountSettings.html',
    quote: 'GET /2016-08-19/account-settings/ HTTP/1.1',
    note:
      'The request syntax; it answers AccountLimit (ConcurrentExecutions, UnreservedConcurrentExecutions, code ' +
      'sizes) and AccountUsage. Read through the copy at docs.amazonaws.cn, the same text.',
  },
  'lambda.unreserved-concurrency': {
    service: 'Lambda',
    value: 'ConcurrentExecutions less the reserved concurrency of every function',
    page: 'https://docs.aws.amazon.com/lambda/latest/api/API_AccountLimit.html',
    quote:
      "The maximum number of simultaneous function executions, minus the capacity that's reserved for individual " +
      'functions with PutFunctionConcurrency.',
    note: 'UnreservedConcurrentExecutions; "Valid Range: Minimum value of 0."',
    notSimulated:
      'a definition: the Lambda simulator answers both figures as a test sets them; core/sweeps/sweep-capacity.ts ' +
      'caps a sweep by the unreserved one',
  },
  'lambda.init-timeout-error': {
    service: 'Lambda',
    value: 'Sandbox.Timedout',
    page: 'https://docs.aws.amazon.com/lambda/latest/dg/troubleshooting-invocation.html',
    quote: 'Lambda: Function times out during Init phase (Sandbox.Timedout)',
    note:
      'A heading of the page, for the Init phase only. Users report newer runtimes putting the name in an invoke ' +
      "timeout's payload too (github.com/floci-io/floci issue 3314; not on AWS's pages).",
    notSimulated:
      "the rehearsal's functions do not time out in Init; core/machine/states.ts catches the name as a function " +
      'timeout',
  },
  'lambda.invoke-unhandled-function-error': {
    service: 'Lambda',
    value: 'Unhandled',
    page: 'https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html',
    quote: "Unhandled - The runtime didn't handle the error. For example, the function ran out of memory or timed out.",
    note:
      "FunctionError (the X-Amz-Function-Error header), read through the API model's text as SDK references " +
      'reproduce it (rusoto_lambda InvocationResponse).',
    notSimulated:
      'the rehearsal emulates the lambda:invoke integration, whose Task sees Lambda.Unknown (the page of ' +
      "sfn.lambda-service-exception-retry), not Invoke's header",
  },
  'iam.lambda-basic-execution-role': {
    service: 'IAM',
    value: {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: '*',
        },
      ],
    },
    page: 'https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSLambdaBasicExecutionRole.html',
    quote:
      '{ "Version" : "2012-10-17", "Statement" : [ { "Effect" : "Allow", "Action" : [ "logs:CreateLogGroup", ' +
      '"logs:CreateLogStream", "logs:PutLogEvents" ], "Resource" : "*" } ] }',
    note: 'Policy version v1 (default), ARN arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole.',
  },
  'data-api.field-members': {
    service: 'RDS Data API',
    value: ['arrayValue', 'blobValue', 'booleanValue', 'doubleValue', 'isNull', 'longValue', 'stringValue'],
    page: 'https://docs.aws.amazon.com/rdsdataservice/latest/APIReference/API_Field.html',
    quote: 'This data type is a UNION, so only one of the following members can be specified when used or returned.',
    note:
      "Which member a Postgres type arrives as is the data-api-operations page's table of Aurora PostgreSQL types " +
      '(numeric as stringValue with the default decimalReturnType STRING; json, dates, times and timestamps as ' +
      'stringValue); interval is not listed there.',
  },
  'data-api.database-error-members': {
    service: 'RDS Data API',
    value: ['message'],
    page:
      'https://docs.aws.amazon.com/botocore/latest/reference/services/rds-data/client/exceptions/' +
      'DatabaseErrorException.html',
    quote: "There was an error in processing the SQL statement. ... { 'message': 'string', 'Error': { ... } }",
    note:
      "botocore's reference gives the response's members; 'Error' is botocore's normalized copy, not the API's. " +
      "@aws-sdk/client-rds-data models none beyond the message. AWS does not document the message's wording.",
  },
  'bedrock.quota-token-burndown': {
    service: 'Bedrock',
    value: true,
    unit: 'some models count tokens against a quota at a higher rate than one for one',
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/quotas.html',
    quote:
      'Model inference in Amazon Bedrock is controlled by quotas on token usage. Some models use tokens at a higher ' +
      'rate.',
    note: 'The rates are on "How tokens are counted in Amazon Bedrock" (quotas-token-burndown.html), not read here.',
    notSimulated:
      'the Bedrock simulator counts tokens one for one; a quota does not show the rate, which ' +
      'bin/cli/bedrock-quotas.ts says where it prints one',
  },
  'bedrock.converse-stop-reasons': {
    service: 'Bedrock',
    value: [
      'end_turn',
      'tool_use',
      'max_tokens',
      'stop_sequence',
      'guardrail_intervened',
      'content_filtered',
      'malformed_model_output',
      'malformed_tool_use',
      'model_context_window_exceeded',
    ],
    page: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_MessageStopEvent.html',
    quote:
      'Valid Values: end_turn | tool_use | max_tokens | stop_sequence | guardrail_intervened | content_filtered | ' +
      'malformed_model_output | malformed_tool_use | model_context_window_exceeded',
    note:
      "Earlier copies of the page list the first six. Converse's stopReason takes the same values as the stream's " +
      'MessageStopEvent.',
  },
  'bedrock.reasoning-signature-unmodified': {
    service: 'Bedrock',
    value: true,
    page: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ReasoningTextBlock.html',
    quote:
      'A token that verifies that the reasoning text was generated by the model. If you pass a reasoning block back ' +
      'to the API in a multi-turn conversation, include the text and its signature unmodified.',
  },
  'bedrock.first-call-subscribes': {
    service: 'Bedrock',
    value: { subscription: 'started by the first call', missingPrerequisites: 'AccessDeniedException' },
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html',
    quote:
      'When you invoke a third-party model for the first time in your account, Amazon Bedrock automatically ' +
      'initiates the subscription process in the background. During this setup period (up to 15 minutes), your API ' +
      'calls may succeed temporarily while the subscription is being finalized. If any prerequisites are missing, ' +
      'the subscription attempt fails, and subsequent API calls return AccessDeniedException.',
    note:
      'The prerequisites: aws-marketplace:Subscribe, aws-marketplace:Unsubscribe and ' +
      'aws-marketplace:ViewSubscriptions ' +
      "for the caller, Anthropic's first-time use case form, and a payment method. The last sentence was read " +
      "through the page's translations, the English copy stored here ending within it.",
  },
  'bedrock.model-lifecycle-states': {
    service: 'Bedrock',
    value: ['Active', 'Legacy', 'End-of-Life'],
    page: MODEL_LIFECYCLE,
    quote:
      'A model offered on Amazon Bedrock can be in one of these states: Active, Legacy, or End-of-Life (EOL). You ' +
      'can see the status of offered models in the console and in the tables below.',
    note:
      'Models launched from 2026-09-07 have the page\'s new policy, the same three states ("Every model on Amazon ' +
      'Bedrock has one of three states"); dates are on each model\'s card.',
  },
  'bedrock.legacy-inactivity-days': {
    service: 'Bedrock',
    value: 15,
    unit: 'days without a call after which an existing customer may lose a Legacy model',
    page: MODEL_LIFECYCLE,
    quote: '(not found: the English sentence was not in the stored copies searched)',
    confirmed: false,
    note:
      'The page, through its translations: new customers cannot use Legacy models and existing ones may lose access ' +
      'through inactivity. The 15 days are from AWS\'s blog "Understanding Amazon Bedrock model lifecycle" ' +
      '("existing ' +
      'customers might lose access for inactive accounts if they do not call the model for a period of 15 days or ' +
      'more") and from the error users report ("... not been actively using the model in the last 15 days"; 30 ' +
      'days in later reports).',
  },
  'bedrock.foundation-model-lifecycle-status': {
    service: 'Bedrock',
    value: ['ACTIVE', 'LEGACY'],
    page: 'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_FoundationModelLifecycle.html',
    quote:
      'Specifies whether a model version is available (ACTIVE) or deprecated (LEGACY. ... ' +
      'Valid Values: ACTIVE | LEGACY',
    note: "GetFoundationModel's modelDetails.modelLifecycle.status; a model past its end of life has no status.",
  },
  'bedrock.adaptive-thinking-only-models': {
    service: 'Bedrock',
    value: [
      'anthropic.claude-mythos-5',
      'anthropic.claude-fable-5',
      'anthropic.claude-opus-4-7',
      'anthropic.claude-mythos-preview',
    ],
    page: 'https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html',
    quote:
      'Claude Mythos 5, Claude Fable 5, Claude Opus 4.7, and Claude Mythos Preview only support adaptive thinking. ' +
      'Manual extended thinking (thinking.type: "enabled" with budget_tokens) and disabled thinking (thinking.type: ' +
      '"disabled") are not supported on these models and will return a 400 error.',
    note:
      "Their model ids from the page's table. An earlier copy named Opus 4.7 and Mythos Preview only, and refused " +
      'manual thinking alone.',
  },
} as const satisfies Record<string, AwsFact>;

export type FactKey = keyof typeof FACTS;

/** The fact of a key; a key not in the table fails typecheck. */
export function fact<K extends FactKey>(key: K): (typeof FACTS)[K] {
  return FACTS[key];
}

/**
 * Each geographic inference profile prefix's destination Regions (us, eu, ... : the bedrock.profile-destinations-*
 * facts; the global profile routes to any commercial Region and has no list): what the stack grants and what the
 * rehearsal's authorizer checks, both from here.
 */
export function geographicProfileDestinations(): Record<string, readonly string[]> {
  const out: Record<string, readonly string[]> = {};
  for (const key of Object.keys(FACTS) as FactKey[]) {
    const prefix = /^bedrock\.profile-destinations-(.+)$/.exec(key)?.[1];
    const value = FACTS[key].value;
    if (prefix && prefix !== 'global' && Array.isArray(value)) out[prefix] = value as readonly string[];
  }
  return out;
}

/** Every fact with its key, in the table's order. */
export function allFacts(): Array<{ key: FactKey } & AwsFact> {
  return (Object.keys(FACTS) as FactKey[]).map((key) => ({ key, ...FACTS[key] }));
}
