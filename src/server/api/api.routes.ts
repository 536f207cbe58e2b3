import { OpenAPIHono } from '@hono/zod-openapi';
import { HTTPException } from 'hono/http-exception';
import { API_TOKEN_REQUESTS_PER_MINUTE } from '../../shared/api-tokens';
import type { AppDeps } from '../deps';
import { billingRoutes } from './billing';
import { answerRefusal } from './errors';
import { serviceActionRoutes } from './service-actions';
import { serviceHealthRoutes } from './service-health';
import { serviceRoutes } from './services';
import { apiTokenAuth, type ApiCaller } from './token-auth';

/** /api: the public REST API under /v1 (token-authenticated) and its OpenAPI 3.1 document. */
export function apiRoutes(deps: Pick<AppDeps, 'db' | 'logger' | 'config' | 'keys'>) {
  const v1 = new OpenAPIHono<{ Variables: { apiCaller: ApiCaller } }>({
    // Zod's refusals become our {code, message} shape, without the schema internals.
    defaultHook: (result, c) => {
      if (!result.success)
        return c.json({ code: 'invalid_request', message: result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }, 400);
    },
  });
  // A body that is no JSON, and the SQL functions' refusals, thrown from any operation, in the API's
  // shape; the rest goes on to the app's handler.
  v1.onError((e, c) => (e instanceof HTTPException && e.status === 400 ? c.json({ code: 'invalid_request', message: e.message }, 400) : answerRefusal(c, e)));
  v1.use('*', apiTokenAuth(deps));
  v1.route('/', serviceRoutes(deps));
  v1.route('/', serviceActionRoutes(deps));
  v1.route('/', serviceHealthRoutes(deps));
  v1.route('/', billingRoutes(deps));
  v1.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (nhp_…) made in Settings › API tokens.',
  });

  const doc = v1.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'NodeHarbor API',
      version: '1',
      description:
        'Your services, nodes and balance, for your own scripts. Make a token in Settings › API tokens and send it as `Authorization: Bearer nhp_…`. ' +
        `Each token may make ${API_TOKEN_REQUESTS_PER_MINUTE} requests a minute. Refusals answer \`{ "code", "message" }\`, in the words the dashboard uses.`,
    },
    servers: [{ url: `${deps.config.publicUrl}/api/v1` }],
    security: [{ bearer: [] }],
  });

  addCodeSamples(doc.paths as Record<string, Record<string, Operation>>, (doc.components?.schemas ?? {}) as Record<string, { example?: unknown }>);

  const app = new OpenAPIHono();
  app.get('/openapi.json', (c) => c.json(doc));
  app.route('/v1', v1);
  return app;
}

type Operation = { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } } & Record<string, unknown>;

/**
 * One curl and one fetch sample per operation, made from its method, its path and its body
 * schema's example, so none is written by hand.
 */
function addCodeSamples(paths: Record<string, Record<string, Operation> | undefined>, schemas: Record<string, { example?: unknown }>) {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item ?? {})) {
      const verb = method.toUpperCase();
      const ref = op.requestBody?.content['application/json']?.schema.$ref;
      const example = ref ? schemas[ref.replace('#/components/schemas/', '')]?.example : undefined;
      const body = example === undefined ? undefined : JSON.stringify(example);
      const curlBody = body ? ` \\\n  -H "Content-Type: application/json" -d '${body}'` : '';
      const fetchBody = body
        ? `\n  headers: { Authorization: \`Bearer \${process.env.NODEHARBOR_TOKEN}\`, 'Content-Type': 'application/json' },\n  body: JSON.stringify(${body}),`
        : `\n  headers: { Authorization: \`Bearer \${process.env.NODEHARBOR_TOKEN}\` },`;
      op['x-codeSamples'] = [
        { lang: 'curl', source: `curl -X ${verb} -H "Authorization: Bearer $NODEHARBOR_TOKEN" "$NODEHARBOR_URL/api/v1${path}"${curlBody}` },
        {
          lang: 'JavaScript',
          source: `const res = await fetch(\`\${process.env.NODEHARBOR_URL}/api/v1${path}\`, {\n  method: '${verb}',${fetchBody}\n});\nconsole.log(await res.json());`,
        },
      ];
    }
  }
}
