// The Step Functions SDK calls of the emulated sweep machine (sweep-machine.ts), on a worker thread in plain Node ESM:
// a 10,000-iteration Map makes 20,000 SDK calls at about half a millisecond of middleware and signing each, which on
// the main thread would compete with the servers answering them. Each message names the access key to sign with, the
// command and its input; the reply is the output, or the error's name and message as the SDK raised it.
import { Agent } from 'node:http';
import { parentPort } from 'node:worker_threads';
import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';

const COMMANDS = {
  StartExecution: StartExecutionCommand,
  SendTaskSuccess: SendTaskSuccessCommand,
  SendTaskFailure: SendTaskFailureCommand,
};
// as many sockets as iterations in flight (a sweep's MaxConcurrency is at most 1,000)
const agent = new Agent({ keepAlive: true, maxSockets: 1_000 });
const clients = new Map();

function clientFor({ endpoint, region, accessKeyId }) {
  const key = `${endpoint} ${region} ${accessKeyId}`;
  let client = clients.get(key);
  if (!client) {
    client = new SFNClient({
      endpoint,
      region,
      credentials: { accessKeyId, secretAccessKey: 'rehearsal-secret' },
      requestHandler: { httpAgent: agent },
    });
    clients.set(key, client);
  }
  return client;
}

parentPort.on('message', (message) => {
  const { id, command, input } = message;
  const Command = COMMANDS[command];
  if (!Command) {
    parentPort.postMessage({ id, ok: false, name: 'UnknownCommand', message: `no command ${command}` });
    return;
  }
  clientFor(message)
    .send(new Command(input))
    .then(
      ({ $metadata: _metadata, ...output }) => parentPort.postMessage({ id, ok: true, output }),
      (err) => parentPort.postMessage({ id, ok: false, name: err.name, message: err.message }),
    );
});
