/**
 * How the production server (server/http/serve.ts) is started — by `npm start`, the end-to-end tests
 * and the benchmark alike. The one place its Node flags live: a small young generation and a capped
 * old generation keep the process near 250 MB under load (the default heuristics let it grow past
 * 800 MB on a busy admin list with no gain in throughput).
 */
import path from 'node:path';

export const SERVE_NODE_FLAGS = ['--max-semi-space-size=4', '--max-old-space-size=256'];

/** [command, args] for child_process.spawn. */
export function serveCommand(root) {
  return [process.execPath, [...SERVE_NODE_FLAGS, '--import', 'tsx', path.join(root, 'server/http/serve.ts')]];
}
