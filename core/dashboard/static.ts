/**
 * The dashboard's own static files, served from its own address (no CDN, no inline script: the
 * Content-Security-Policy allows 'self' only). The script adds conveniences to pages that work
 * without it: a Copy button, a confirmation before a form marked data-confirm is sent, the
 * browser's side of passkeys (navigator.credentials.create and get), which has no form to fall back on,
 * and the listing page's uploads (with the vendored tus client, vendor/tus.ts; the page says to use
 * the API or marketkit upload without the script).
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
// A passkey the dashboard refused to keep (a username taken meanwhile, a challenge expired): the
// browser is told where it can hear it (WebAuthn's Signal API), so that its authenticator drops a
// passkey that would open nothing rather than offer it at every sign-in.
async function keptOrForgotten(rpId, credential, keep) {
  try {
    return await keep();
  } catch (error) {
    if (window.PublicKeyCredential && PublicKeyCredential.signalUnknownCredential) await PublicKeyCredential.signalUnknownCredential({ rpId, credentialId: credential.id }).catch(() => {});
    throw error;
  }
}
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
    const done = await keptOrForgotten(options.rp.id, credential, () => postJson(base + '/passkeys', { name: form.elements.name.value, credential: credentialJson(credential) }, formToken));
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
document.addEventListener('submit', async (event) => {
  const form = event.target.closest('[data-passkey-sign-up]');
  if (!form) return;
  event.preventDefault();
  const base = form.getAttribute('data-passkey-sign-up');
  const username = form.elements.username.value.trim();
  try {
    const options = await postJson(base + '/sign-up/options', { username });
    say('Follow your browser’s prompt to make the passkey…');
    const publicKey = { ...options, challenge: fromBase64url(options.challenge), user: { ...options.user, id: fromBase64url(options.user.id) }, excludeCredentials: withIds(options.excludeCredentials) };
    const credential = await navigator.credentials.create({ publicKey });
    const done = await keptOrForgotten(options.rp.id, credential, () => postJson(base + '/sign-up/verify', { username, credential: credentialJson(credential) }));
    window.location.assign(done.redirect);
  } catch (error) {
    say('The account was not made: ' + error.message);
  }
});
// Uploads (upload-pages.ts): tus-js-client (/static/tus.min.js) to the API's own tus endpoint, in 8 MiB
// chunks. Its fingerprint (the listing, the file's name, size and date) and upload URL stay in
// localStorage until the upload succeeds, so after a reload or a lost connection the same file goes
// on from the server's offset. The forms are hidden until this script shows them.
for (const form of document.querySelectorAll('[data-upload]')) form.hidden = false;
document.addEventListener('submit', async (event) => {
  const form = event.target.closest('[data-upload]');
  if (!form) return;
  event.preventDefault();
  const file = form.elements.file.files[0];
  if (!file || form.upload) return;
  const kind = form.getAttribute('data-upload'), action = form.getAttribute('data-action'), formToken = form.getAttribute('data-form-token');
  const status = form.querySelector('[data-upload-status]'), bar = form.querySelector('progress'), pause = form.querySelector('[data-upload-pause]');
  const tell = (text) => { status.textContent = text; };
  if (!window.tus || !window.tus.isSupported) return tell('This browser cannot upload here: use the API or marketkit upload.');
  const key = 'marketkit/' + form.getAttribute('data-key');
  const stopped = (text) => { form.upload = null; pause.hidden = true; tell(text); };
  const upload = form.upload = new window.tus.Upload(file, {
    fingerprint: (f) => Promise.resolve([key, f.name, f.size, f.lastModified].join('/')),
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    chunkSize: 8 * 1024 * 1024,
    retryDelays: [0, 1000, 3000, 5000, 10000, 20000],
    onProgress(sent, total) { const percent = total ? Math.floor((sent * 100) / total) : 100; bar.value = percent; tell(percent + '% (' + sent + ' of ' + total + ' bytes)'); },
    onError(error) { stopped('The upload stopped (' + (error.message || error).toString().split('\\n')[0] + '). Choose the same file and press Upload to go on from where it stopped.'); },
    async onSuccess() {
      pause.hidden = true;
      tell('Uploaded: confirming…');
      const meta = upload.options.metadata;
      try {
        const body = kind === 'image' ? { public_url: meta.public_url } : { storage_path: meta.storage_path, file_size: file.size };
        window.location.assign((await postJson(action + '/confirm', body, formToken)).redirect);
      } catch (error) {
        stopped('The upload was not confirmed: ' + error.message);
      }
    },
  });
  try {
    const previous = (await upload.findPreviousUploads())[0];
    if (previous && previous.metadata && previous.metadata.storage_path) {
      upload.resumeFromPreviousUpload(previous);
      upload.options.metadata = previous.metadata;
      tell('Going on from where the upload stopped…');
    } else {
      const issued = await postJson(action + '/upload-url', { filename: file.name, file_size: file.size }, formToken);
      upload.options.uploadUrl = issued.upload_url;
      upload.options.metadata = { storage_path: issued.storage_path, public_url: issued.public_url || '' };
      tell('Uploading…');
    }
  } catch (error) {
    return stopped('The upload did not start: ' + error.message);
  }
  bar.hidden = false;
  pause.hidden = false;
  pause.textContent = 'Pause';
  upload.start();
});
document.addEventListener('click', (event) => {
  const pause = event.target.closest('[data-upload-pause]');
  const upload = pause && pause.form.upload;
  if (!upload) return;
  if (pause.textContent === 'Pause') {
    upload.abort();
    pause.textContent = 'Resume';
    pause.form.querySelector('[data-upload-status]').textContent = 'Paused.';
  } else {
    pause.textContent = 'Pause';
    upload.start();
  }
});
`;

export const dashboardStyles = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
html { background: Canvas; color: CanvasText; }
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
@media (prefers-color-scheme: dark) { [role=alert] { color: #ff8a80; } }
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
ol.gallery { padding: 0; list-style: none; }
ol.gallery li { max-width: 160px; }
ol.gallery form { display: inline-block; margin: .25rem .25rem 0 0; }
.gallery img { max-width: 100%; height: auto; display: block; background: #8882; }
.fields { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
.fields dd { margin: 0; }
.prose, .reason { white-space: pre-wrap; overflow-wrap: anywhere; }
.decision { margin: .75rem 0; }
.decision textarea { display: block; width: 100%; max-width: 40rem; }
.upload progress { width: 20rem; max-width: 100%; }
`;
