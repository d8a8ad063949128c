/**
 * The reference page's renderer when swagger-ui-dist is not installed (it is an optional peer
 * dependency: docs/openapi.md). A few lines of script that list every operation of
 * /api/v1/openapi.json with its parameters, body example and responses; no dependency, nothing
 * fetched but the document, every text set with textContent. It answers to the name the page
 * loads (SwaggerUIBundle), so that the page is the same with either renderer.
 */
export const basicReferenceScript = `(function () {
  'use strict';
  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }
  function render(root, doc) {
    root.appendChild(el('h1', (doc.info && doc.info.title) || 'API reference'));
    var note = el('p', 'A basic reference: install swagger-ui-dist next to marketkit for the interactive one. The machine-readable document: ');
    var link = el('a', 'openapi.json');
    link.href = window.__marketkitOpenApiUrl;
    note.appendChild(link);
    root.appendChild(note);
    Object.keys(doc.paths || {}).forEach(function (path) {
      var methods = doc.paths[path];
      Object.keys(methods).forEach(function (method) {
        var op = methods[method];
        if (!op || typeof op !== 'object' || !op.responses) return;
        var section = el('section', null, 'operation');
        section.id = op.operationId || method + ' ' + path;
        var title = el('h2');
        title.appendChild(el('span', method.toUpperCase(), 'method'));
        title.appendChild(el('code', ' ' + path));
        section.appendChild(title);
        section.appendChild(el('p', op.summary, 'summary'));
        section.appendChild(el('p', 'operationId: ' + op.operationId, 'operation-id'));
        if (op.description) section.appendChild(el('p', op.description));
        var parameters = op.parameters || [];
        if (parameters.length) {
          var list = el('ul', null, 'parameters');
          parameters.forEach(function (p) {
            list.appendChild(el('li', p.name + ' (' + p.in + (p.required ? ', required' : '') + ')' + (p.description ? ': ' + p.description : '')));
          });
          section.appendChild(list);
        }
        var body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json'];
        if (body && body.example !== undefined) section.appendChild(el('pre', JSON.stringify(body.example, null, 2), 'example'));
        var responses = el('ul', null, 'responses');
        Object.keys(op.responses).forEach(function (code) {
          var item = el('li', code + ' ' + (op.responses[code].description || ''));
          item.setAttribute('data-code', code);
          responses.appendChild(item);
        });
        section.appendChild(responses);
        root.appendChild(section);
      });
    });
  }
  window.SwaggerUIBundle = function (options) {
    window.__marketkitOpenApiUrl = options.url;
    var root = document.getElementById(options.dom_id.replace(/^#/, ''));
    fetch(options.url).then(function (response) { return response.json(); }).then(function (doc) { render(root, doc); }, function (error) {
      root.appendChild(el('p', 'The document could not be loaded: ' + error));
    });
    return {};
  };
})();
`;

export const basicReferenceCss = `body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1b1b1b; }
.operation { border-top: 1px solid #ccc; padding: .5rem 0; }
.operation h2 { font-size: 1.1rem; margin: .5rem 0; }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; }
.operation-id { color: #555; font-size: .85rem; margin: 0; }
pre { background: #f4f4f4; padding: .5rem; overflow: auto; }
`;
