import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { sha256Hex } from '../../core/domain/sha256.js';

async function subtleHex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

test('sha256Hex gives the bytes crypto.subtle gives, at every padding boundary', async () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  for (let length = 0; length <= 130; length++) {
    const text = 'a'.repeat(length);
    assert.equal(sha256Hex(text), await subtleHex(text), `length ${length}`);
  }
});

test('sha256Hex agrees with crypto.subtle on any string, tokens and non-ASCII alike', async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 })), async (text) => {
      assert.equal(sha256Hex(text), await subtleHex(text));
    }),
    { numRuns: 300 },
  );
});
