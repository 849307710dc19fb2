// The ESLint rule that keeps src/ imports going one way (eslint.config.js gives it the order).
// A place is a folder directly under src/ or a file at src/'s root. A file may import from its own
// place and from any place in a layer below its own; `limits` narrows that for a place (the
// workflows: values only from the places listed, `import type` also from a few more). It checks
// `import`, `import type`, `export ... from`, `export type ... from` and `import('...')`. Under
// verbatimModuleSyntax `import { type X }` still loads the module, so only a declaration-level
// `import type` / `export type` counts as types only. A place missing from the order is an error
// of its own, so that a new folder cannot escape the check.
import { dirname, relative, resolve, sep } from 'node:path';

/** The place of a path under src/ (a top folder, or a root file with its .ts name), or null outside src/. */
export function placeOf(srcDir, file) {
  const rel = relative(srcDir, file);
  if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return null;
  const parts = rel.split(sep);
  return parts.length === 1 ? parts[0].replace(/\.js$/, '.ts') : parts[0];
}

/** A place as messages name it: `src/client/`, `src/index.ts`. */
const label = (place) => (place.endsWith('.ts') ? `src/${place}` : `src/${place}/`);

/** The layers as text, for messages: `cli, index.ts > client, worker > ...`. */
export function orderText(layers) {
  return layers.map((layer) => layer.join(', ')).join(' > ');
}

/**
 * Why `from` may not import `to` (a value import unless `typeOnly`), or null when it may.
 * `layers`: top first; `limits`: { [place]: { only: [...], typesFrom: [...] } }.
 */
export function refusal({ layers, limits = {} }, from, to, typeOnly) {
  if (from === to) return null;
  const rank = (place) => layers.findIndex((layer) => layer.includes(place));
  if (rank(from) < 0) return `${label(from)} is in no layer of the import order: add it to the order in eslint.config.js and CONTRIBUTING.md`;
  if (rank(to) < 0) return `${label(to)} is in no layer of the import order: add it to the order in eslint.config.js and CONTRIBUTING.md`;
  const limit = limits[from];
  if (limit) {
    if (limit.only.includes(to)) return null;
    if (limit.typesFrom?.includes(to)) return typeOnly ? null : `${label(from)} may take only types from ${label(to)}: use \`import type\` (a value would be bundled into the workflow code)`;
    return `${label(from)} may import only from ${[...limit.only.map(label), ...(limit.typesFrom ?? []).map((p) => `${label(p)} (types)`)].join(', ')}`;
  }
  if (rank(to) > rank(from)) return null;
  const where = rank(to) === rank(from) ? 'in the same layer as' : 'above';
  return `${label(to)} is ${where} ${label(from)} in the import order (${orderText(layers)}): move what both need below both`;
}

export const importOrderRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports between the folders of src/ go down the order given in eslint.config.js (see CONTRIBUTING.md).' },
    schema: [
      {
        type: 'object',
        properties: {
          srcDir: { type: 'string' },
          layers: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
          limits: { type: 'object' },
          selfName: { type: 'string' },
        },
        required: ['srcDir', 'layers'],
        additionalProperties: false,
      },
    ],
    messages: {
      against: '{{reason}}',
      self: 'src/ imports itself by relative path, not by the package name `{{name}}` (that would bypass the import order)',
    },
  },
  create(context) {
    const options = context.options[0];
    const srcDir = resolve(options.srcDir);
    const file = context.physicalFilename ?? context.filename;
    const from = placeOf(srcDir, file);
    if (from === null) return {};

    function check(node, source, typeOnly) {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
      const spec = source.value;
      if (options.selfName && (spec === options.selfName || spec.startsWith(`${options.selfName}/`))) {
        context.report({ node: source, messageId: 'self', data: { name: spec } });
        return;
      }
      if (!spec.startsWith('.')) return;
      const to = placeOf(srcDir, resolve(dirname(file), spec));
      if (to === null) return;
      const reason = refusal(options, from, to, typeOnly);
      if (reason) context.report({ node: source, messageId: 'against', data: { reason } });
    }

    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type'),
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      TSImportEqualsDeclaration: (node) => check(node, node.moduleReference?.expression, node.importKind === 'type'),
    };
  },
};

export default { rules: { 'import-order': importOrderRule } };
