/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and extension bundles from its own package folder at run time; Swagger UI's files
  // (the API reference page) are read from theirs.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'swagger-ui-dist'],
  poweredByHeader: false,
  // Workspace packages shared with Core (packages/*) ship TypeScript source.
  transpilePackages: [
    '@shared/api-reference',
    '@shared/charts',
    '@shared/data-folder',
    '@shared/logger',
    '@shared/markdown',
    '@shared/metrics',
    '@shared/pglite-memory',
    '@shared/ops',
    '@shared/seal',
    '@shared/tokens',
  ],
  // `npm test` type-checks the whole project (tsc --noEmit); the build need not do it a second time.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // forbidden() (next/navigation): "Not allowed" pages answer 403, rendered by app/forbidden.tsx.
  experimental: { authInterrupts: true },
};

export default nextConfig;
