// npm run build:web: the browser bundle into dist/web, then every public route prerendered to static HTML
// (content and head tags before any script runs), the SPA shell (200.html), 404.html, robots.txt and sitemap.xml.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist/web');
const ssrOut = join(root, 'dist/web-ssr');
const configFile = join(root, 'vite.config.ts');
const siteUrl = (process.env.SITE_URL || 'https://nodeharbor.io').replace(/\/+$/, '');

await build({ configFile, logLevel: 'warn' });
await build({
  configFile,
  logLevel: 'warn',
  build: { ssr: join(root, 'src/web/entry-server.tsx'), outDir: ssrOut, emptyOutDir: true, manifest: false },
});

const { render, routes } = await import(pathToFileURL(join(ssrOut, 'entry-server.js')).href);
const template = readFileSync(join(out, 'index.html'), 'utf8');
if (!template.includes('<!--seo-->') || !template.includes('<!--app-->')) throw new Error('index.html lost its <!--seo--> or <!--app--> marker');

const page = (head, html) => {
  // Our CSP refuses inline scripts but the theme's (in the template, allowed by its hash): a page that needs one would not hydrate.
  if (/<script(?![^>]*\b(src|type="application\/ld\+json")=?)[^>]*>/.test(html)) throw new Error('a prerendered page contains an inline script');
  return template.replace('<!--seo-->', head).replace('<!--app-->', html);
};
const write = (rel, body) => {
  mkdirSync(join(out, rel, '..'), { recursive: true });
  writeFileSync(join(out, rel), body);
};

// The shell for client-only routes (the dashboard) and unknown paths: the server falls back to it.
write('200.html', page('<title>NodeHarbor</title>\n    <meta name="robots" content="noindex">', ''));

const prerendered = routes.filter((r) => r.prerender);
for (const r of prerendered) {
  const { html, head } = await render(r.path);
  write(r.path === '/' ? 'index.html' : join(r.path.slice(1), 'index.html'), page(head, html));
}
{
  const { html, head } = await render('/404');
  write('404.html', page(head, html));
}

// The routes only the browser renders: the server answers them with 200.html, anything unknown with 404.html.
write('spa-routes.json', JSON.stringify(routes.filter((r) => !r.prerender).map((r) => r.path)));

const sitemapRoutes = routes.filter((r) => r.sitemap);
write(
  'sitemap.xml',
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${sitemapRoutes
    .map((r) => `  <url><loc>${siteUrl}${r.path === '/' ? '/' : r.path}</loc><priority>${r.path === '/' ? '1.0' : '0.7'}</priority></url>`)
    .join('\n')}\n</urlset>\n`,
);
write('robots.txt', `User-agent: *\nAllow: /\nDisallow: /dashboard\nDisallow: /admin\nDisallow: /reset-password-confirm\n\nSitemap: ${siteUrl}/sitemap.xml\n`);

rmSync(ssrOut, { recursive: true, force: true });

// Compressed once here, so the server sends .br or .gz without spending CPU per request.
const compressible = /\.(html|js|css|svg|json|xml|txt)$/;
const compressAll = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) compressAll(p);
    else if (compressible.test(name)) {
      const body = readFileSync(p);
      writeFileSync(`${p}.gz`, gzipSync(body, { level: 9 }));
      writeFileSync(`${p}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    }
  }
};
compressAll(out);

// The API reference's viewer (/docs/api, src/server/api/api-docs.ts): Scalar's browser bundle, a
// build-time dependency copied here so that production holds the file, not the package and the
// build tools it depends on. 5 MB: gzip only, as brotli at its best would add seconds to every build.
const scalar = readFileSync(join(root, 'node_modules/@scalar/api-reference/dist/browser/standalone.js'));
mkdirSync(join(out, 'docs/api'), { recursive: true });
writeFileSync(join(out, 'docs/api/scalar.js'), scalar);
writeFileSync(join(out, 'docs/api/scalar.js.gz'), gzipSync(scalar, { level: 9 }));
console.log(`build:web: ${prerendered.length} routes prerendered, plus 200.html, 404.html, spa-routes.json, robots.txt, sitemap.xml`);
