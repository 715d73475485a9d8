import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../support/process.js';

/**
 * Hosts a document may link to: the local server the documents tell the
 * reader to start, and public standards and format sites. Anything else
 * would make the repository depend on a page it does not control.
 */
const ALLOWED_HOSTS = new Set([
  '127.0.0.1',
  'localhost',
  'keepachangelog.com',
  'semver.org',
  'www.rfc-editor.org',
  'datatracker.ietf.org',
  'spec.openapis.org',
  'www.w3.org',
  'owasp.org',
]);

/** The documents whose links must hold: every Markdown file at the root and in docs/. */
function documents(): string[] {
  const root = readdirSync(ROOT).filter((name) => name.endsWith('.md'));
  const docs = readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return [...root, ...docs].sort();
}

/** The text outside fenced code blocks and code spans, where Markdown links live. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const plain = (heading ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every link target in a Markdown text: inline links, autolinks and reference definitions. */
function linkTargets(text: string): string[] {
  const body = prose(text);
  return [
    ...[...body.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ''),
    ...[...body.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)].map((m) => m[1] ?? ''),
    ...[...body.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map((m) => m[1] ?? ''),
  ];
}

/** What is wrong with the links of `file` (a path from the repository root) whose text is `text`. */
function brokenLinks(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      const url = URL.canParse(target) ? new URL(target) : undefined;
      if (!url || !['http:', 'https:'].includes(url.protocol) || !ALLOWED_HOSTS.has(url.hostname)) {
        problems.push(`${file}: ${target} leaves the repository`);
      }
      continue;
    }
    const [linkPath = '', anchor] = target.split('#', 2);
    const resolved = linkPath === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(linkPath));
    const inside = path.relative(ROOT, resolved);
    if (inside.startsWith('..') || path.isAbsolute(inside) || linkPath.startsWith('/')) {
      problems.push(`${file}: ${target} points outside the repository`);
      continue;
    }
    if (!existsSync(resolved)) {
      problems.push(`${file}: ${target} points at ${inside}, which does not exist`);
      continue;
    }
    if (anchor !== undefined && anchor !== '' && resolved.endsWith('.md') && statSync(resolved).isFile()) {
      const headings = anchors(linkPath === '' ? text : readFileSync(resolved, 'utf8'));
      if (!headings.has(anchor)) problems.push(`${file}: ${target} names a heading ${inside} does not have`);
    }
  }
  return problems;
}

describe('links in the documentation', () => {
  test('when every Markdown document of the repository is read, then each link points at a file (and heading) inside it or at an allowed public site', () => {
    const files = documents();
    for (const required of ['README.md', 'DEPLOYMENT.md', 'SECURITY.md', 'BENCHMARKS.md', 'CHANGELOG.md', 'docs/contract.md', 'docs/client.md']) {
      assert.ok(files.includes(required), `${required} is checked`);
    }
    const problems = files.flatMap((file) => brokenLinks(file, readFileSync(path.join(ROOT, file), 'utf8')));
    assert.deepEqual(problems, []);
  });

  test('when a document links outside the repository, to a missing file or heading, or to another site, then the check names each one, and code is not read as links', () => {
    const text = [
      '# A heading',
      '[spec](../shared/spec/store-orders-service.md) [gone](docs/missing.md) [anchor](docs/errors.md#no-such-heading)',
      '[ok](docs/errors.md#error-codes) [self](#a-heading) [root](/etc/passwd) <https://example.com/page> [rfc](https://www.rfc-editor.org/rfc/rfc9110)',
      '```sh',
      'see [this](../outside.md)',
      '```',
      'and `[inline](../outside.md)`',
    ].join('\n');
    assert.deepEqual(brokenLinks('README.md', text), [
      'README.md: ../shared/spec/store-orders-service.md points outside the repository',
      'README.md: docs/missing.md points at docs/missing.md, which does not exist',
      'README.md: docs/errors.md#no-such-heading names a heading docs/errors.md does not have',
      'README.md: /etc/passwd points outside the repository',
      'README.md: https://example.com/page leaves the repository',
    ]);
  });
});
