import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { THEME_SCRIPT } from './src/shared/theme-script';

const src = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Inlines the theme script where index.html marks it; the server's CSP allows it by its hash. */
const themeScript: Plugin = {
  name: 'nodeharbor-theme-script',
  transformIndexHtml: (html) => {
    if (!html.includes('<!--theme-script-->')) throw new Error('index.html lost its <!--theme-script--> marker');
    return html.replace('<!--theme-script-->', `<script>${THEME_SCRIPT}</script>`);
  },
};

export default defineConfig({
  root: src('./src/web'),
  publicDir: src('./src/web/public'),
  plugins: [react(), tailwindcss(), themeScript],
  resolve: { alias: { '@': src('./src/web'), '@shared': src('./src/shared') } },
  // The canonical origin baked into the prerendered pages' SEO tags.
  define: { __SITE_URL__: JSON.stringify((process.env.SITE_URL || 'https://nodeharbor.io').replace(/\/+$/, '')) },
  build: {
    outDir: src('./dist/web'),
    emptyOutDir: true,
    manifest: true,
    // The signed-in area's pages load their parts as they import them. Their preload lists would sit
    // in the entry every public page loads, against its 100 KB budget (bench:web), and a signed-in
    // page waits for the session's round trip anyway.
    modulePreload: { resolveDependencies: (file, deps) => (/(^|\/)(admin-page|admin-user-page|dashboard-page)-[\w-]+\.js$/.test(file) ? [] : deps) },
  },
  // npm run dev: the API runs on 8080; Vite proxies to it.
  server: {
    port: 5173,
    proxy: Object.fromEntries(['/auth', '/rest', '/functions', '/config.json', '/healthz'].map((p) => [p, 'http://localhost:8080'])),
  },
});
