import { z } from 'zod';
import { configSchema } from './config.schema';

/** One row of docs/configuration.md, read from the schema itself. */
export interface ConfigEntry {
  name: string;
  default: string;
  values: string;
  description: string;
}

type Schema = z.core.$ZodType;

/** The schema under `.default()` and `.optional()`, where its meta and options are. */
function inner(schema: Schema): Schema {
  const def = schema._zod.def as { type: string; innerType?: Schema };
  return (def.type === 'default' || def.type === 'optional') && def.innerType ? inner(def.innerType) : schema;
}

function defaultOf(schema: Schema): string {
  const def = schema._zod.def as { type: string; defaultValue?: unknown };
  if (def.type !== 'default') return 'none';
  const value = def.defaultValue;
  if (Array.isArray(value) || (typeof value === 'object' && value !== null)) return 'none';
  return `\`${String(value)}\``;
}

/** Allowed values: a range or shape the schema's helpers record, or an enum's options. */
function valuesOf(schema: Schema): string {
  const base = inner(schema);
  const meta = z.globalRegistry.get(base) as { values?: string } | undefined;
  if (meta?.values) return meta.values;
  const def = base._zod.def as { type: string; entries?: Record<string, string> };
  if (def.type === 'enum' && def.entries) {
    return Object.values(def.entries)
      .map((value) => `\`${value}\``)
      .join(', ');
  }
  return '';
}

/** Every variable of the config schema, in the schema's order. */
export function configEntries(): ConfigEntry[] {
  return Object.entries(configSchema._zod.def.shape as Record<string, Schema>).map(([name, schema]) => ({
    name,
    default: defaultOf(schema),
    values: valuesOf(schema),
    description: (z.globalRegistry.get(schema) as { description?: string } | undefined)?.description ?? '',
  }));
}

/** A Markdown table with its columns padded as Prettier pads them. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(3, cell.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** docs/configuration.md: written by `npm run docs:config`, checked by config-doc.spec.ts. */
export function configReference(): string {
  const rows = configEntries().map((entry) => [
    `\`${entry.name}\``,
    entry.default,
    entry.values,
    entry.description,
  ]);
  return `# Configuration

<!-- Generated from libs/shared/src/config/config.schema.ts by \`npm run docs:config\`: edit the schema, not this file. -->

Only environment variables, validated at start: a bad or missing one stops the process (exit code
78) with a message naming it. The defaults point at the local services that \`npm run services:up\`
starts; the development credentials among them are for local use only.

${table(['variable', 'default', 'values', 'meaning'], rows)}

Node's own \`NODE_OPTIONS\` is read too: a heap flag there wins over the process's heap rule
(docs/running.md, "Memory"). The services script also reads \`SERVICES_DIR\` (default \`.data\`),
\`SERVICES_CACHE\` (default \`.cache\`), \`ES_VERSION\`, \`ES_HEAP\` (default \`512m\`) and \`ES_NODES\`
(\`2\` starts a second Elasticsearch node that joins the first): see
[local-services.md](local-services.md).
`;
}
