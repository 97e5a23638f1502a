// Requests that ask for structured output (a JSON schema: OpenAI's `response_format`, the Responses API's
// `text.format`, Anthropic's `output_format`, Gemini's `responseJsonSchema`) are parsed by the harness,
// which retries or fails on anything else. Gemini CLI's model router, for one, asks for
// {complexity_reasoning, complexity_score} before a turn and retries five times with backoff (~100 s of a
// trial) when it gets plain text. So a text answer to such a request is an instance of its schema: the
// strings carry the text the scripted model would have said, everything else takes the schema's plainest
// value (its first enum value, its minimum, false, the fewest items), which chooses nothing for the harness.
// A reviewer's verdict is answered in its own schema by review.ts; this is every other structured request.
import type { Conversation } from './conversation.js';

type Schema = Record<string, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema's type, lower-cased (Gemini writes OBJECT, STRING…); of a type list, the first that is not null. */
function typeOf(schema: Schema): string | undefined {
  const t = schema.type;
  const first = Array.isArray(t) ? t.find((x) => String(x).toLowerCase() !== 'null') : t;
  if (typeof first === 'string') return first.toLowerCase();
  if (isSchema(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function numberIn(schema: Schema, integer: boolean): number {
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  const step = integer ? 1 : 0.001;
  const low =
    num('minimum') ?? (num('exclusiveMinimum') !== undefined ? num('exclusiveMinimum')! + step : undefined);
  const high =
    num('maximum') ?? (num('exclusiveMaximum') !== undefined ? num('exclusiveMaximum')! - step : undefined);
  const n = low ?? (high !== undefined && high < 0 ? high : 0);
  return integer ? Math.ceil(n) : n;
}

/** A value that satisfies `schema`, its strings carrying `text`. */
export function schemaInstance(schema: unknown, text: string, depth = 0): unknown {
  if (!isSchema(schema) || depth > 8) return text;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[k];
    if (Array.isArray(options) && options.length > 0) {
      const usable = options.find((o) => isSchema(o) && typeOf(o) !== 'null') ?? options[0];
      return schemaInstance(usable, text, depth + 1);
    }
  }
  switch (typeOf(schema)) {
    case 'object': {
      const props = isSchema(schema.properties) ? schema.properties : undefined;
      // An object with no declared properties (JSON mode without a schema) still carries the text.
      if (!props || Object.keys(props).length === 0) return { text };
      return Object.fromEntries(
        Object.entries(props).map(([k, p]) => [k, schemaInstance(p, text, depth + 1)]),
      );
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: min }, () => schemaInstance(schema.items, text, depth + 1));
    }
    case 'integer':
      return numberIn(schema, true);
    case 'number':
      return numberIn(schema, false);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return text;
  }
}

/** The text answer as the request asks for it: `text` itself, or, under an output schema, JSON of an instance. */
export function structuredText(conv: Pick<Conversation, 'outputSchema'>, text: string): string {
  return conv.outputSchema === undefined ? text : JSON.stringify(schemaInstance(conv.outputSchema, text));
}
