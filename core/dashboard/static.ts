/**
 * The dashboard's own static files, served from its own address (no CDN, no inline script: the
 * Content-Security-Policy allows 'self' only). The script adds conveniences to pages that work
 * without it: a Copy button, a confirmation before a form marked data-confirm is sent, and the
 * browser's side of passkeys (navigator.credentials.create and get), which has no form to fall back on.
 */
export const dashboardScript = `'use strict';
document.addEventListener('click', (event) => {
  const button = event.target.closest('[data-copy]');
  if (!button) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field) return;
  field.select();
  const done = () => { button.textContent = 'Copied'; };
  if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, () => document.execCommand('copy') && done());
  else if (document.execCommand('copy')) done();
});
document.addEventListener('submit', (event) => {
  const message = event.target.getAttribute('data-confirm');
  if (message && !window.confirm(message)) event.preventDefault();
});
// Passkeys (passkey-pages.ts): WebAuthn's binary fields travel as base64url in the JSON.
const fromBase64url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
const toBase64url = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const withIds = (list) => (list || []).map((item) => ({ ...item, id: fromBase64url(item.id) }));
async function postJson(url, body, formToken) {
  const headers = { 'content-type': 'application/json', ...(formToken ? { 'x-form-token': formToken } : {}) };
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' });
  const answer = await res.json().then((value) => value, () => null);
  if (!res.ok) throw new Error((answer && answer.error && answer.error.message) || 'The dashboard refused it (' + res.status + '): reload the page and try again.');
  return answer;
}
function credentialJson(credential) {
  const r = credential.response;
  const response = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) Object.assign(response, { attestationObject: toBase64url(r.attestationObject), transports: r.getTransports ? r.getTransports() : [] });
  if (r.signature) Object.assign(response, { authenticatorData: toBase64url(r.authenticatorData), signature: toBase64url(r.signature), ...(r.userHandle ? { userHandle: toBase64url(r.userHandle) } : {}) });
  return { id: credential.id, rawId: toBase64url(credential.rawId), type: credential.type, response, clientExtensionResults: credential.getClientExtensionResults(), ...(credential.authenticatorAttachment ? { authenticatorAttachment: credential.authenticatorAttachment } : {}) };
}
const say = (text) => { const status = document.getElementById('passkey-status'); if (status) status.textContent = text; };
document.addEventListener('submit', async (event) => {
  const form = event.target.closest('[data-passkey-add]');
  if (!form) return;
  event.preventDefault();
  const base = form.getAttribute('data-passkey-add');
  const formToken = form.getAttribute('data-form-token');
  try {
    say('Follow your browser’s prompt to make the passkey…');
    const options = await postJson(base + '/passkeys/options', {}, formToken);
    const publicKey = { ...options, challenge: fromBase64url(options.challenge), user: { ...options.user, id: fromBase64url(options.user.id) }, excludeCredentials: withIds(options.excludeCredentials) };
    const credential = await navigator.credentials.create({ publicKey });
    const done = await postJson(base + '/passkeys', { name: form.elements.name.value, credential: credentialJson(credential) }, formToken);
    window.location.assign(done.redirect);
  } catch (error) {
    say('The passkey was not added: ' + error.message);
  }
});
document.addEventListener('click', async (event) => {
  const button = event.target.closest('[data-passkey-sign-in]');
  if (!button) return;
  const base = button.getAttribute('data-passkey-sign-in');
  try {
    say('Follow your browser’s prompt…');
    const options = await postJson(base + '/sign-in/passkey/options', {});
    const credential = await navigator.credentials.get({ publicKey: { ...options, challenge: fromBase64url(options.challenge), allowCredentials: withIds(options.allowCredentials) } });
    const done = await postJson(base + '/sign-in/passkey/verify', { credential: credentialJson(credential) });
    window.location.assign(done.redirect);
  } catch (error) {
    say('That did not sign you in: ' + error.message);
  }
});
`;

export const dashboardStyles = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; }
header { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1.5rem; border-bottom: 1px solid #8884; }
header .brand { font-weight: 700; text-decoration: none; }
header .sign-out { margin-left: auto; }
main { max-width: 64rem; padding: 1rem 1.5rem 3rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #8884; vertical-align: top; }
fieldset { border: 1px solid #8886; }
fieldset label { display: inline-block; margin-right: 1rem; }
.secret { font-family: ui-monospace, monospace; }
.hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
a.button, button { font: inherit; padding: .3rem .8rem; }
[role=alert] { color: #b00020; }
header nav a, .tabs a, .pager a { margin-right: 1rem; }
.tabs { display: flex; flex-wrap: wrap; gap: .25rem 0; margin: 0 0 1rem; padding: 0; list-style: none; border-bottom: 1px solid #8884; }
.tabs a { display: inline-block; padding: .3rem .2rem; text-decoration: none; }
.tabs a[aria-current=page] { font-weight: 700; border-bottom: 3px solid currentColor; }
.count { opacity: .75; }
.muted { opacity: .75; }
.digest { font-family: ui-monospace, monospace; font-size: .8em; word-break: break-all; }
.thumb { object-fit: cover; background: #8882; }
.gallery { display: flex; flex-wrap: wrap; gap: 1rem; }
.gallery figure { margin: 0; }
.gallery img { max-width: 100%; height: auto; display: block; background: #8882; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.fields dd { margin: 0; }
.prose, .reason { white-space: pre-wrap; overflow-wrap: anywhere; }
.decision { margin: .75rem 0; }
.decision textarea { display: block; width: 100%; max-width: 40rem; }
`;
