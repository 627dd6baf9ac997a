// The child side of a rehearsed Lambda container (lambda-process.ts), plain Node as the bundles are plain ESM: it loads
// the module and export _HANDLER names from LAMBDA_TASK_ROOT once (the init phase), then answers each invocation sent
// over IPC, so module state survives between warm invocations as in Lambda. Errors take the Node runtime's shape:
// { errorType, errorMessage, trace }.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { types } from 'node:util';

const send = (msg) => new Promise((resolve) => process.send(msg, () => resolve()));

/**
 * The Node runtime's error shape: an error (native, or any object with string name, message and stack) gives
 * its name as errorType and its stack as trace; anything else thrown gives typeof as errorType.
 */
function toRuntimeError(error) {
  try {
    const errorLike = ['name', 'message', 'stack'].every((k) => error?.[k] && typeof error[k] === 'string');
    if (types.isNativeError(error) || errorLike)
      return { errorType: error.name, errorMessage: error.message, trace: error.stack.split('\n') };
    return { errorType: typeof error, errorMessage: String(error), trace: [] };
  } catch {
    return { errorType: 'handled', errorMessage: 'the thrown value could not be read (name, message, stack)' };
  }
}

const runtimeError = (errorType, errorMessage) => ({ errorType, errorMessage, trace: [] });

async function loadHandler() {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  const spec = process.env._HANDLER ?? '';
  const slash = spec.lastIndexOf('/') + 1;
  const dot = spec.indexOf('.', slash);
  if (dot <= slash) throw runtimeError('Runtime.MalformedHandlerName', `Bad handler ${spec}`);
  const moduleName = spec.slice(0, dot);
  const exportPath = spec.slice(dot + 1).split('.');
  // The Node runtime's order: .js, then .mjs, then .cjs.
  const file = ['.js', '.mjs', '.cjs'].map((ext) => join(taskRoot, moduleName + ext)).find((f) => existsSync(f));
  if (!file) throw runtimeError('Runtime.ImportModuleError', `Error: Cannot find module '${moduleName}'`);
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    if (err instanceof SyntaxError) throw runtimeError('Runtime.UserCodeSyntaxError', String(err));
    if (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND')
      throw runtimeError('Runtime.ImportModuleError', String(err));
    throw toRuntimeError(err);
  }
  let fn = mod;
  for (const key of exportPath) fn = fn?.[key];
  if (typeof fn !== 'function')
    throw runtimeError('Runtime.HandlerNotFound', `${moduleName}.${exportPath.join('.')} is undefined or not exported`);
  return fn;
}

let current = null;

// A rejection or exception outside the awaited handler ends the container, as in Lambda's Node runtime.
process.on('unhandledRejection', (reason) => {
  void send({
    type: 'error',
    id: current,
    fatal: true,
    error: runtimeError('Runtime.UnhandledPromiseRejection', String(reason)),
  }).then(() => process.exit(128));
});
process.on('uncaughtException', (err) => {
  void send({ type: 'error', id: current, fatal: true, error: toRuntimeError(err) }).then(() => process.exit(129));
});
// The parent owns the container: when it goes, so does this process.
process.on('disconnect', () => process.exit(0));

let handler;
try {
  handler = await loadHandler();
} catch (err) {
  await send({ type: 'init-error', error: err?.errorType ? err : toRuntimeError(err) });
  process.exit(1);
}

process.on('message', (msg) => {
  if (msg?.type !== 'invoke') return;
  current = msg.id;
  void invoke(msg).finally(() => (current = null));
});
await send({ type: 'ready' });

async function invoke({ id, requestId, payload, deadline, functionArn }) {
  const env = process.env;
  const context = {
    awsRequestId: requestId ?? randomUUID(),
    functionName: env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: functionArn,
    memoryLimitInMB: env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: env.AWS_LAMBDA_LOG_STREAM_NAME,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const result = await handler(JSON.parse(payload), context);
    // undefined answers as JSON null, as Lambda returns it.
    await send({ type: 'result', id, payload: JSON.stringify(result) ?? 'null' });
  } catch (err) {
    await send({ type: 'error', id, error: toRuntimeError(err) });
  }
}
