/**
 * GET /metrics: the Prometheus text of this process (server/metrics.ts). On the public port, behind a
 * token: `Authorization: Bearer <HUB_METRICS_TOKEN>`. Without HUB_METRICS_TOKEN the endpoint is off (404),
 * so nothing about the process is public by default. A scraper per process: each process has its own figures.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseBearer } from '@shared/tokens';
import { config } from '../config';
import { metricsRegistry } from '../metrics';

const digest = (value: string) => createHash('sha256').update(value).digest();

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function metricsAnswer(authorization: string | null | undefined): Promise<MetricsAnswer> {
  const token = config.metricsToken;
  const json = { 'content-type': 'application/json', 'cache-control': 'no-store' };
  if (!token)
    return {
      status: 404,
      headers: json,
      body: JSON.stringify({
        error: { code: 'NOT_FOUND', message: '/metrics is off: set HUB_METRICS_TOKEN to serve it' },
      }),
    };
  const given = parseBearer(authorization) ?? '';
  if (!timingSafeEqual(digest(given), digest(token))) {
    return {
      status: 401,
      headers: { ...json, 'www-authenticate': 'Bearer realm="metrics"' },
      body: JSON.stringify({
        error: { code: 'UNAUTHORIZED', message: 'Send Authorization: Bearer <HUB_METRICS_TOKEN>' },
      }),
    };
  }
  return {
    status: 200,
    headers: { 'content-type': metricsRegistry.contentType, 'cache-control': 'no-store' },
    body: await metricsRegistry.metrics(),
  };
}
