import type { FastifyInstance, HTTPMethods } from 'fastify';

const routeTables = new WeakMap<FastifyInstance, RouteRecorder>();

/** Every route registered on `app` so far: its URL pattern and methods. */
export function routeTable(app: FastifyInstance): { url: string; methods: string[] }[] {
  return routeTables.get(app)?.all() ?? [];
}

/** What recordRoutes keeps: every route so far, and the methods of the routes a URL matches. */
export interface RouteRecorder {
  all(): { url: string; methods: string[] }[];
  methodsFor(url: string): string[];
}

/**
 * Starts recording the routes of `app` as they are registered (call it before
 * any route), for routeTable and for the 405 handler.
 */
export function recordRoutes(app: FastifyInstance): RouteRecorder {
  const routes = collectRoutes(app);
  routeTables.set(app, routes);
  return routes;
}

/**
 * Records every route's path and methods as it is registered, so that a
 * request that matches a path but not a method gets 405 with Allow (Fastify
 * answers 404 for both).
 */
function collectRoutes(app: FastifyInstance) {
  const byPattern = new Map<string, { regex: RegExp; methods: Set<string> }>();
  const record = (url: string, methods: readonly string[]) => {
    let entry = byPattern.get(url);
    if (entry === undefined) {
      entry = { regex: patternToRegex(url), methods: new Set() };
      byPattern.set(url, entry);
    }
    for (const method of methods) entry.methods.add(method.toUpperCase());
  };
  // A `/` route under a prefix is also registered at `<prefix>/` (prefixTrailingSlash) without an
  // onRoute call of its own (only its HEAD twin gets one): each candidate is checked against the router.
  const slashVariants: { url: string; methods: readonly string[] }[] = [];
  let checked = 0;
  const complete = () => {
    for (const { url, methods } of slashVariants.slice(checked)) {
      record(url, methods.filter((method) => app.hasRoute({ url, method: method.toUpperCase() as HTTPMethods })));
    }
    checked = slashVariants.length;
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    record(route.url, methods);
    if (route.routePath === '' && route.prefix !== '') slashVariants.push({ url: `${route.url}/`, methods });
  });
  return {
    all: () => {
      complete();
      return [...byPattern].map(([url, entry]) => ({ url, methods: [...entry.methods].sort() }));
    },
    methodsFor(url: string): string[] {
      complete();
      const queryStart = url.indexOf('?');
      const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
      // Match what the router matches: the percent-decoded path.
      let path = rawPath;
      try {
        path = decodeURIComponent(rawPath);
      } catch {
        // Undecodable paths never reach here (FST_ERR_BAD_URL); keep the raw form regardless.
      }
      const methods = new Set<string>();
      for (const entry of byPattern.values()) {
        if (entry.regex.test(path)) for (const method of entry.methods) methods.add(method);
      }
      return [...methods].sort();
    },
  };
}

function patternToRegex(pattern: string): RegExp {
  const source = pattern
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) return '[^/]*';
      if (segment === '*') return '.*';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}$`);
}
