/** Where a running Hub shares its embedded database (socket.ts); apart, so naming it loads no PGlite. */
import path from 'node:path';

export const EMBEDDED_SOCKET_PORT = 5432;

/** sun_path is 108 bytes on Linux (104 on macOS): a longer data folder path cannot carry the socket. */
export const MAX_SOCKET_PATH = 103;

/** `<data folder>/.s.PGSQL.5432`: what libpq, psql and postgres.js connect to for host=<folder> port=5432. */
export function embeddedSocketPath(dataDir: string): string {
  return path.join(path.resolve(dataDir), `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`);
}
