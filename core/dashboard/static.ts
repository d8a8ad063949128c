/**
 * The dashboard's own static files, served from its own address (no CDN, no inline script: the
 * Content-Security-Policy allows 'self' only). The script adds conveniences to pages that work
 * without it: a Copy button, and a confirmation before a form marked data-confirm is sent.
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
`;
