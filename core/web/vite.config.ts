import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built to core/web/dist, which Core serves at / (with index.html for every non-API path).
// `npm run dev -w core-web` proxies the API to a Core on CORE_DEV_API (default http://localhost:4000).
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: { proxy: { '/api': process.env.CORE_DEV_API ?? 'http://localhost:4000' } },
});
