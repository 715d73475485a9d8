import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * The browsable docs page (Swagger UI) at `routePrefix`. Every script, style
 * and image comes from our own server (the swagger-ui-dist files bundled in
 * @fastify/swagger-ui), so it works with no internet access; the validator
 * badge, which would call an outside service, stays off. With `documents`,
 * the page offers each (the first is shown first); otherwise it shows the
 * host's default document. Its own routes are not rate limited (like the
 * health probes): one reader loading the page fetches a dozen files, and a
 * reader must not be refused the documentation for having read it.
 */
export async function registerDocsPage(
  app: FastifyInstance,
  { routePrefix = '/docs', documents }: { routePrefix?: string; documents?: readonly { name: string; url: string }[] } = {},
): Promise<void> {
  app.addHook('onRoute', (route) => {
    if (route.url === routePrefix || route.url.startsWith(`${routePrefix}/`)) route.config = { ...route.config, rateLimit: false };
  });
  await app.register(fastifySwaggerUi, {
    routePrefix,
    // Tight: everything from this server; Swagger UI needs inline styles and data: images.
    staticCSP:
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      "connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    validatorUrl: false,
    uiConfig: {
      deepLinking: true,
      displayOperationId: true,
      defaultModelsExpandDepth: 1,
      ...(documents === undefined ? {} : { urls: documents.map(({ name, url }) => ({ name, url })) }),
    },
  });
}
