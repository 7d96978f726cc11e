/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite loads its WASM and extension bundles from its own package folder at run time.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
