// The telemetry port as JSON lines, for the CLI and the benchmarks: the fields Powertools writes in Lambda (level,
// message, timestamp, service, then the record's own, less those that are null, as Powertools leaves them out), one
// object a line, handed to `write` (a log file, stderr).
// Metrics are not written here: their values are the turn line's fields, and no CloudWatch reads a laptop's lines.
import { SERVICE } from './metrics.ts';
import { errorFields, turnFields, type EventFields, type Telemetry } from './telemetry.ts';

export function jsonLinesTelemetry(write: (line: string) => void, now: () => Date = () => new Date()): Telemetry {
  const line = (level: 'INFO' | 'ERROR', message: string, fields: EventFields) => {
    const known = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined));
    write(JSON.stringify({ level, message, timestamp: now().toISOString(), service: SERVICE, ...known }));
  };
  return {
    turn: (r) => line('INFO', 'turn', turnFields(r)),
    event: (message, fields) => line('INFO', message, fields),
    error: (message, err, fields = {}) => line('ERROR', message, { ...fields, ...errorFields(err) }),
    experimentFailed: (fields) => line('ERROR', 'experiment failed', fields),
  };
}
