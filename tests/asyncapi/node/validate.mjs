// The official AsyncAPI parser (@asyncapi/parser, with the Avro and Protobuf schema parsers)
// over exported documents. Prints one JSON object: file -> {parsed, diagnostics, model}:
// - diagnostics: [{severity: "error"|"warning"|"info"|"hint", code, message, path}]
// - model: what a reader of the document sees: servers, channels (address, messages) and
//   operations (action, channel address, message names), and per message its content type,
//   schema format and payload (as the parser resolved it).
// `node validate.mjs --yaml FILE...` instead prints each YAML file as js-yaml (YAML 1.2) reads it.
// No network: an exported document refers to nothing outside itself.
import { readFile } from "node:fs/promises";
import { Parser } from "@asyncapi/parser";
import { AvroSchemaParser } from "@asyncapi/avro-schema-parser";
import { ProtoBuffSchemaParser } from "@asyncapi/protobuf-schema-parser";
import yaml from "js-yaml";

const SEVERITY = ["error", "warning", "info", "hint"];
const args = process.argv.slice(2);
const out = {};

if (args[0] === "--yaml") {
  for (const file of args.slice(1)) {
    out[file] = yaml.load(await readFile(file, "utf8"));
  }
} else {
  const parser = new Parser({
    schemaParsers: [AvroSchemaParser(), ProtoBuffSchemaParser()],
    __unstable: { resolver: { resolvers: [] } },
  });
  for (const file of args) {
    const text = await readFile(file, "utf8");
    const { document, diagnostics } = await parser.parse(text, { source: file });
    out[file] = {
      parsed: document !== undefined,
      diagnostics: diagnostics.map((d) => ({
        severity: SEVERITY[d.severity] ?? String(d.severity),
        code: String(d.code),
        message: d.message,
        path: d.path.join("/"),
      })),
      model: document === undefined ? null : model(document),
    };
  }
}
process.stdout.write(JSON.stringify(out) + "\n");

// a recursive schema resolves into a cyclic object: its way back becomes "<circular>"
function acyclic(value, ancestors) {
  if (value === null || typeof value !== "object") return value;
  if (ancestors.has(value)) return "<circular>";
  ancestors.add(value);
  const out = Array.isArray(value)
    ? value.map((v) => acyclic(v, ancestors))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, acyclic(v, ancestors)]));
  ancestors.delete(value);
  return out;
}

function model(doc) {
  const messages = {};
  for (const m of doc.components().messages().all()) {
    messages[m.id()] = {
      name: m.name() ?? null,
      contentType: m.contentType() ?? null,
      schemaFormat: m.hasPayload() ? m.payload().schemaFormat() : null,
      payload: m.hasPayload() ? acyclic(m.payload().json(), new Set()) : null,
    };
  }
  return {
    servers: Object.fromEntries(
      doc.servers().all().map((s) => [s.id(), { host: s.host(), protocol: s.protocol() }]),
    ),
    channels: Object.fromEntries(
      doc.channels().all().map((c) => [
        c.id(),
        { address: c.address() ?? null, messages: c.messages().all().map((m) => m.id()) },
      ]),
    ),
    operations: Object.fromEntries(
      doc.operations().all().map((o) => [
        o.id(),
        {
          action: o.action(),
          channels: o.channels().all().map((c) => c.address() ?? null),
          messages: o.messages().all().map((m) => m.name() ?? null),
        },
      ]),
    ),
    messages,
  };
}
