/**
 * The layering as a check (npm run lint): cli → app → api → controller →
 * runtime → schemas, nothing upward, and no import cycles, type-only imports
 * included. bench/ and test/ may use the product; the product never uses
 * them; bench/ takes only fixtures from test/.
 */
const LAYERS = ['schemas', 'runtime', 'controller', 'api', 'app', 'cli'];

/** Each layer may import itself and the layers below it, never one above. */
const upward = LAYERS.map((layer, i) => ({
  name: `no-upward-from-${layer}`,
  comment: `${layer}/ may depend only on ${LAYERS.slice(0, i + 1).join(', ')}`,
  severity: 'error',
  from: { path: `^${layer}/` },
  to: { path: `^(${[...LAYERS.slice(i + 1), 'bench', 'test'].join('|')})/` },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-cycles',
      comment: 'No import cycles, type-only ones included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'console-takes-only-schemas',
      comment: 'The web console (a browser page) shares only the API shapes of schemas/, as types; it talks to the gateway over HTTP.',
      severity: 'error',
      from: { path: '^console/' },
      to: { path: '^(runtime|controller|api|app|cli|bench|test)/' },
    },
    {
      name: 'bench-takes-only-fixtures-from-test',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^test/', pathNot: '^test/fixtures/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|coverage)/' },
    // Type-only imports count: a cycle of types is still a cycle of meaning.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.check.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js'] },
  },
};
