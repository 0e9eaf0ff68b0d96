import { JsonNumber, JsonObject, type JsonValue } from '../rpc/json-value.js';
import { escapeJsonString } from '../rpc/json-write.js';

/**
 * UniValue::write(prettyIndent) as komodo-cli prints a result with write(2)
 * (src/univalue/lib/univalue_write.cpp at 0adeeab): `"key": value`, every array element and object
 * member on its own line indented by 2 per level, and UniValue's quirk that an empty array or object
 * still breaks the line: `[` newline `]`. Numbers keep the exact text the server sent (UniValue
 * keeps number text), so amounts print with their 8 decimals.
 */
export function writePretty(v: JsonValue, prettyIndent = 2): string {
  return write(v, prettyIndent, 0);
}

function write(v: JsonValue, pretty: number, indentLevel: number): string {
  const level = indentLevel === 0 ? 1 : indentLevel;
  if (v === null) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return `"${escapeJsonString(v)}"`;
  if (v instanceof JsonNumber) return v.text;
  if (Array.isArray(v)) {
    let s = '[';
    if (pretty) s += '\n';
    v.forEach((item, i) => {
      if (pretty) s += ' '.repeat(pretty * level);
      s += write(item, pretty, level + 1);
      if (i !== v.length - 1) s += ',';
      if (pretty) s += '\n';
    });
    if (pretty) s += ' '.repeat(pretty * (level - 1));
    return s + ']';
  }
  if (v instanceof JsonObject) {
    let s = '{';
    if (pretty) s += '\n';
    v.entries.forEach(([k, item], i) => {
      if (pretty) s += ' '.repeat(pretty * level);
      s += `"${escapeJsonString(k)}":`;
      if (pretty) s += ' ';
      s += write(item, pretty, level + 1);
      if (i !== v.entries.length - 1) s += ',';
      if (pretty) s += '\n';
    });
    if (pretty) s += ' '.repeat(pretty * (level - 1));
    return s + '}';
  }
  throw new Error('writePretty: not a JSON value');
}
