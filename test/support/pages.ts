import assert from 'node:assert/strict';
import type { TestApp } from './app.js';
import type { LightMyRequestResponse } from 'fastify';

/** A v2 listing page as received. */
export interface Page {
  data: { id: number | string; status: string; petId?: number }[];
  nextCursor: string | null;
}

/** The order ids of a raw page body, as exact decimal text (JSON.parse would round beyond 2^53). */
export function exactIds(body: string): string[] {
  return [...body.matchAll(/"id":(-?\d+)/g)].map((match) => match[1] ?? '');
}

/** Follows nextCursor from `url` to the last page and returns every page. */
export async function walk(app: TestApp['app'], auth: Record<string, string>, url: string): Promise<{ pages: Page[]; bodies: string[]; links: (string | undefined)[] }> {
  const pages: Page[] = [];
  const bodies: string[] = [];
  const links: (string | undefined)[] = [];
  let next: string | undefined = url;
  while (next !== undefined) {
    const response: LightMyRequestResponse = await app.inject({ method: 'GET', url: next, headers: auth });
    assert.equal(response.statusCode, 200, response.body);
    const page = response.json() as Page;
    pages.push(page);
    bodies.push(response.body);
    const link = response.headers.link as string | undefined;
    links.push(link);
    next = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    assert.equal(next === undefined, page.nextCursor === null, 'Link rel="next" is present exactly when nextCursor is');
  }
  return { pages, bodies, links };
}
