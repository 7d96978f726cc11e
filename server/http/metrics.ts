/**
 * GET /metrics: the Prometheus text of this process (server/metrics.ts). On the public port, behind a
 * token: `Authorization: Bearer <HUB_METRICS_TOKEN>`. Without HUB_METRICS_TOKEN the endpoint is off (404),
 * so nothing about the process is public by default. A scraper per process: each process has its own figures.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { metricsWith, type MetricSnapshot } from '@shared/metrics';
import { parseBearer } from '@shared/tokens';
import { hubErrorAnswer, TransportError } from '../api/errors';
import { config } from '../config';
import { metricsRegistry } from '../metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A refusal through the one error model ({code, message, request_id}), as every other answer of the Hub. */
function refusal(error: TransportError, headers: Record<string, string> = {}): MetricsAnswer {
  const answer = hubErrorAnswer(error, '/metrics');
  return { status: answer.status, headers: { ...answer.headers, ...headers }, body: JSON.stringify(answer.body) };
}

/** `elsewhere`: figures counted on the process's other thread (the pages thread: pages.ts), added to this one's. */
export async function metricsAnswer(
  authorization: string | null | undefined,
  elsewhere?: () => Promise<MetricSnapshot[]>,
): Promise<MetricsAnswer> {
  const token = config.metricsToken;
  if (!token) return refusal(new TransportError('NOT_FOUND', '/metrics is off: set HUB_METRICS_TOKEN to serve it'));
  const given = parseBearer(authorization) ?? '';
  if (!timingSafeEqual(digest(given), digest(token))) {
    return refusal(new TransportError('UNAUTHORIZED', 'Send Authorization: Bearer <HUB_METRICS_TOKEN>'), {
      'www-authenticate': 'Bearer realm="metrics"',
    });
  }
  return {
    status: 200,
    headers: { 'content-type': metricsRegistry.contentType, 'cache-control': 'no-store' },
    body: await metricsWith(metricsRegistry, (await elsewhere?.()) ?? []),
  };
}
