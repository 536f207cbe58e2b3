import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppDeps } from '../deps';
import { billingRoutes } from './billing';
import { serviceRoutes } from './services';
import { apiTokenAuth, type ApiCaller } from './token-auth';

/** /api: the public REST API under /v1 (token-authenticated) and its OpenAPI 3.1 document. */
export function apiRoutes(deps: Pick<AppDeps, 'db' | 'logger' | 'config'>) {
  const v1 = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>({
    // Zod's refusals become our {code, message} shape, without the schema internals.
    defaultHook: (result, c) => {
      if (!result.success)
        return c.json({ code: 'invalid_request', message: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, 400);
    },
  });
  v1.use('*', apiTokenAuth(deps));
  v1.route('/', serviceRoutes(deps));
  v1.route('/', billingRoutes(deps));
  v1.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (nhp_…) made in Settings › API tokens.',
  });

  const doc = v1.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'NodeHarbor API', version: '1' },
    servers: [{ url: `${deps.config.publicUrl}/api/v1` }],
    security: [{ bearer: [] }],
  });

  addCodeSamples((doc.paths ?? {}) as Record<string, Record<string, unknown> | undefined>);

  const app = new OpenAPIHono();
  app.get('/openapi.json', (c) => c.json(doc));
  app.route('/v1', v1);
  return app;
}

/** One curl and one fetch sample per operation, made from its method and path so none is written by hand. */
function addCodeSamples(paths: Record<string, Record<string, unknown> | undefined>) {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const verb = method.toUpperCase();
      const url = `$NODEHARBOR_URL/api/v1${path}`;
      (op as Record<string, unknown>)['x-codeSamples'] = [
        { lang: 'curl', source: `curl -X ${verb} -H "Authorization: Bearer $NODEHARBOR_TOKEN" "${url}"` },
        {
          lang: 'JavaScript',
          source: `const res = await fetch(\`\${process.env.NODEHARBOR_URL}/api/v1${path}\`, {\n  method: '${verb}',\n  headers: { Authorization: \`Bearer \${process.env.NODEHARBOR_TOKEN}\` },\n});\nconsole.log(await res.json());`,
        },
      ];
    }
  }
}
