/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and extension bundles from its own package folder at run time.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit); the build need not do it a second time.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // forbidden() (next/navigation): "Not allowed" pages answer 403, rendered by app/forbidden.tsx.
  experimental: { authInterrupts: true },
};

export default nextConfig;
