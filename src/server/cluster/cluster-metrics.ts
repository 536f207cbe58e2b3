import type { Worker } from 'node:cluster';
import cluster from 'node:cluster';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import { isMessage, toPrimary, type ClusterMessage } from './messages';

/** How long the primary waits for the HTTP processes' metrics, and an HTTP process for the primary's answer. */
const GATHER_MS = 5_000;
const ANSWER_MS = GATHER_MS + 1_000;

type OwnMetrics = MetricObjectWithValues<MetricValue<string>>[];

/**
 * In the primary: answers an HTTP process's request for the cluster's metrics with prom-client's
 * aggregation (counters summed, each as prom-client aggregates it) of the metrics of every HTTP
 * process that `serving` lists. A process still starting is not asked: it could not answer yet.
 */
export function answerMetricsRequests(serving: () => Worker[]): void {
  let next = 0;
  const gathering = new Map<number, { metrics: OwnMetrics[]; pending: number; done: () => void }>();
  cluster.on('message', (worker, message: unknown) => {
    if (isMessage(message, 'nodeharbor:own-metrics-result')) {
      const gather = gathering.get(message.id);
      if (!gather) return;
      gather.metrics.push(message.metrics);
      if (--gather.pending === 0) gather.done();
      return;
    }
    if (!isMessage(message, 'nodeharbor:metrics')) return;
    const reply = (answer: { text: string } | { error: string }) => {
      if (worker.isConnected()) worker.send({ type: 'nodeharbor:metrics-result', id: message.id, ...answer } satisfies ClusterMessage);
    };
    const id = next++;
    const asked = serving().filter((w) => w.isConnected());
    const timer = setTimeout(() => {
      gathering.delete(id);
      reply({ error: `${gather.pending} of ${asked.length} HTTP processes did not give their metrics in time` });
    }, GATHER_MS);
    const gather = {
      metrics: [] as OwnMetrics[],
      pending: asked.length,
      done: () => {
        clearTimeout(timer);
        gathering.delete(id);
        AggregatorRegistry.aggregate(gather.metrics)
          .metrics()
          .then(
            (text) => reply({ text }),
            (e: unknown) => reply({ error: String(e) }),
          );
      },
    };
    gathering.set(id, gather);
    if (asked.length === 0) gather.done();
    for (const w of asked) w.send({ type: 'nodeharbor:own-metrics', id } satisfies ClusterMessage);
  });
}

/**
 * In an HTTP process: gives `registry` to the primary when it gathers, and returns how to ask the
 * primary for the aggregate (this process's own counts are in it).
 */
export function clusterMetricsSource(registry: Registry): () => Promise<string> {
  process.on('message', (message: unknown) => {
    if (!isMessage(message, 'nodeharbor:own-metrics')) return;
    void registry.getMetricsAsJSON().then((metrics) => toPrimary({ type: 'nodeharbor:own-metrics-result', id: message.id, metrics }));
  });
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => done(new Error('the primary did not answer for the metrics')), ANSWER_MS);
      const onMessage = (message: unknown) => {
        if (!isMessage(message, 'nodeharbor:metrics-result') || message.id !== id) return;
        done(message.error === undefined ? undefined : new Error(message.error), message.text);
      };
      function done(error: Error | undefined, text = '') {
        clearTimeout(timer);
        process.off('message', onMessage);
        if (error) reject(error);
        else resolve(text);
      }
      process.on('message', onMessage);
      toPrimary({ type: 'nodeharbor:metrics', id });
    });
}
