// The API reference, drawn from /openapi.json by our own code: FastAPI's Swagger UI would load
// its scripts from a CDN onto the origin that holds the operator token.
const el = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
const refName = (schema) => (schema && schema.$ref ? schema.$ref.split("/").pop() : schema && schema.type) || "";

function schemaTable(spec, schema) {
  const resolved = schema && schema.$ref ? spec.components.schemas[refName(schema)] : schema;
  const props = (resolved && resolved.properties) || {};
  const table = el("table");
  for (const [name, p] of Object.entries(props)) {
    const tr = table.insertRow();
    tr.append(el("td", name + ((resolved.required || []).includes(name) ? " *" : "")),
      el("td", refName(p) || (p.anyOf || []).map(refName).join(" | ")), el("td", p.description || p.title || ""));
  }
  return table;
}

function operation(spec, path, method, op) {
  const section = el("section", undefined, "op");
  section.id = op.operationId || `${method}-${path}`;
  const head = el("h3");
  head.append(el("span", method.toUpperCase(), `method ${method}`), el("code", path), el("span", op.summary || "", "summary"));
  section.append(head);
  if (op.description) section.append(el("p", op.description));
  if (op.parameters && op.parameters.length) {
    const table = el("table");
    op.parameters.forEach((p) => {
      const tr = table.insertRow();
      tr.append(el("td", p.name + (p.required ? " *" : "")), el("td", p.in), el("td", p.description || refName(p.schema)));
    });
    section.append(el("h4", "Parameters"), table);
  }
  const body = op.requestBody && op.requestBody.content;
  if (body) {
    const [type, media] = Object.entries(body)[0];
    section.append(el("h4", `Body (${type}) ${refName(media.schema)}`), schemaTable(spec, media.schema));
  }
  const responses = el("ul", undefined, "responses");
  Object.entries(op.responses || {}).forEach(([code, r]) => responses.append(el("li", `${code}: ${r.description}`)));
  section.append(responses);
  return section;
}

fetch("/openapi.json").then((r) => r.json()).then((spec) => {
  document.getElementById("title").textContent = `${spec.info.title} ${spec.info.version}`;
  const byTag = new Map();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags || ["other"])[0];
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(operation(spec, path, method, op));
    }
  }
  const main = document.getElementById("api");
  byTag.forEach((ops, tag) => main.append(el("h2", tag), ...ops));
  document.body.dataset.loaded = String(main.querySelectorAll(".op").length);
}).catch((e) => { document.getElementById("message").textContent = `could not read /openapi.json: ${e.message}`; });
