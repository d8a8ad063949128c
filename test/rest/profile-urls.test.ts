/**
 * Every URL field of the profile takes http and https only (pentest finding: socials.* and
 * hire.contact took javascript: URLs while website refused them). One definition, isWebUrl in
 * core/schemas/common.ts; socials and hire.contact may also hold a handle without a URL scheme.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { socialKeys } from '../../core/schemas/profile.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

/** Values a page would turn into a script or another scheme if it put them in a link. */
const hostile = [
  'javascript:alert(1)',
  'JavaScript:alert(document.cookie)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'javascript\n:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'file:///etc/passwd',
  'mailto:someone@example.com',
  'https://castle.example/\u0000',
];

describe('PATCH /me: URL fields take http and https only', () => {
  for (const key of socialKeys) {
    test(`socials.${key} refuses other schemes, naming the field`, async () => {
      const client = as(server, server.seller.token);
      for (const value of hostile) {
        const res = await client.patch('/me', { socials: { [key]: value } });
        assert.equal(res.status, 400, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'INVALID_INPUT');
        assert.equal(res.body.details[0].path, `socials.${key}`, JSON.stringify(res.body));
        assert.match(res.body.error, /http or https URL/);
      }
      assert.notEqual((await client.get('/me')).body.socials[key], hostile[0], 'nothing was stored');
    });
  }

  test('hire.contact refuses other schemes, naming the field', async () => {
    const client = as(server, server.seller.token);
    for (const value of hostile) {
      const res = await client.patch('/me', { hire: { contact: value } });
      assert.equal(res.status, 400, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.details[0].path, 'hire.contact');
    }
  });

  test('website refuses the same values (one definition)', async () => {
    const client = as(server, server.seller.token);
    for (const value of [...hostile, ' https://castle.example', 'castle.example']) {
      const res = await client.patch('/me', { website: value });
      assert.equal(res.status, 400, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.details[0].path, 'website');
    }
  });

  test('handles, email addresses and http(s) URLs are kept as sent', async () => {
    const client = as(server, server.seller.token);
    const socials = {
      twitter: '@castle',
      github: 'castle-works',
      discord: 'castle#1234',
      youtube: 'https://www.youtube.com/@castle',
      website: 'http://castle.example/about?x=1',
      twitch: null,
      tiktok: '//tiktok.example/@castle',
    };
    const res = await client.patch('/me', { website: 'https://castle.example', socials, hire: { available: true, contact: 'me@castle.example' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.website, 'https://castle.example');
    for (const [key, value] of Object.entries(socials)) assert.equal(res.body.socials[key], value, key);
    assert.equal(res.body.hire.contact, 'me@castle.example');
    const link = await client.patch('/me', { hire: { contact: 'https://castle.example/hire' } });
    assert.equal(link.body.hire.contact, 'https://castle.example/hire');
  });
});
