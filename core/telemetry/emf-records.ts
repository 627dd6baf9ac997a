// The embedded metric format records among log lines, read back as CloudWatch extracts them: each record's namespace,
// dimension sets and metric values. The cost bench counts the custom metrics a run sends with it, and the deploy
// rehearsal checks what the rehearsed functions wrote.
export interface EmfMetric {
  namespace: string;
  name: string;
  /** The dimensions, name=value, sorted: with the namespace and name, what makes one custom metric. */
  dimensions: string[];
  value: number;
  /** The record's other properties (the experiment id, turn, model): searchable, not dimensions. */
  properties: Record<string, unknown>;
}

interface EmfDirective {
  Namespace: string;
  Dimensions: string[][];
  Metrics: Array<{ Name: string }>;
}

/** Every metric value in the lines' EMF records (lines that are not JSON objects with an _aws block are skipped). */
export function emfMetrics(lines: readonly string[]): EmfMetric[] {
  const out: EmfMetric[] = [];
  for (const line of lines) {
    if (!line.startsWith('{') || !line.includes('"_aws"')) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const directives = (record._aws as { CloudWatchMetrics?: EmfDirective[] } | undefined)?.CloudWatchMetrics ?? [];
    for (const d of directives) {
      const metricNames = new Set(d.Metrics.map((m) => m.Name));
      const dimensionNames = new Set(d.Dimensions.flat());
      const properties = Object.fromEntries(
        Object.entries(record).filter(([k]) => k !== '_aws' && !metricNames.has(k) && !dimensionNames.has(k)),
      );
      for (const set of d.Dimensions)
        for (const { Name } of d.Metrics)
          out.push({
            namespace: d.Namespace,
            name: Name,
            dimensions: set.map((k) => `${k}=${String(record[k])}`).sort(),
            value: Number(record[Name]),
            properties,
          });
    }
  }
  return out;
}

/** The distinct custom metrics among them: what CloudWatch bills per metric-hour while they are sent. */
export function distinctMetrics(metrics: readonly EmfMetric[]): string[] {
  return [...new Set(metrics.map((m) => `${m.namespace}/${m.name}{${m.dimensions.join(',')}}`))].sort();
}
