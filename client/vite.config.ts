import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The server serves dist/ on the same origin as the signaling WebSocket (/ws) and the API (/api);
// in `vite dev` both are proxied to a locally running server.
const server = 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true },
  worker: { format: 'es' },
  server: {
    proxy: {
      '/ws': { target: server, ws: true },
      '/api': { target: server },
    },
  },
});
