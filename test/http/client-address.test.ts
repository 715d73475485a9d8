/** The client address the request logs keep for a request the fast lane answers (http/request-log-capture.ts): its socket's, as Node's getter reads it, or behind a trusted proxy the forwarded one. */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test } from 'node:test';
import { clientAddressReader } from '../../src/http/request-log-capture.js';

const request = (socket: { remoteAddress: string | undefined }): IncomingMessage => ({ socket, headers: {} }) as unknown as IncomingMessage;

test('when requests come on one connection and on others, then each gets its own socket\u2019s address, and a socket with none yet is asked again', () => {
  const read = clientAddressReader([]);
  const first = { remoteAddress: '203.0.113.7' as string | undefined };
  const second = { remoteAddress: '::1' as string | undefined };
  assert.equal(read(request(first)), '203.0.113.7');
  assert.equal(read(request(second)), '::1');
  assert.equal(read(request(first)), '203.0.113.7');
  const early = { remoteAddress: undefined as string | undefined };
  assert.equal(read(request(early)), undefined);
  early.remoteAddress = '198.51.100.2';
  assert.equal(read(request(early)), '198.51.100.2');
});

test('when a proxy is trusted, then the address is read from each request\u2019s X-Forwarded-For, never kept from an earlier one', () => {
  const read = clientAddressReader(['127.0.0.1']);
  const socket = { remoteAddress: '127.0.0.1' };
  const forwarded = (address: string): IncomingMessage => ({ socket, headers: { 'x-forwarded-for': address } }) as unknown as IncomingMessage;
  assert.equal(read(forwarded('203.0.113.7')), '203.0.113.7');
  assert.equal(read(forwarded('198.51.100.2')), '198.51.100.2');
});
