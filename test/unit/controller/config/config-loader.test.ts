/**
 * The config loader: YAML → env expansion → schema validation → defaults,
 * and config file lookup. Every error must name the key path (and line).
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigText, loadConfigFile, locateConfigFile } from '../../../../controller/config/config-loader.js';
import { ConfigError, type ConfigProblem } from '../../../../schemas/errors.js';
import type { StdioBackendSpec, HttpBackendSpec } from '../../../../schemas/config.js';

/** Parses and returns the ConfigError's problems; fails the test if the text is valid. */
function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): { problems: ConfigProblem[]; message: string } {
  try {
    parseConfigText(text, { env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return { problems: (err as ConfigError).problems, message: (err as Error).message };
  }
  throw new Error('expected the config to be rejected');
}

const problemAt = (problems: ConfigProblem[], path: string) => {
  const p = problems.find((x) => x.path === path);
  expect(p, `a problem at ${path}; got ${JSON.stringify(problems)}`).toBeDefined();
  return p!;
};

describe('config: environment expansion', () => {
  const text = `
server:
  host: \${GW_HOST:-127.0.0.1}
  port: \${GW_PORT:-9100}
  session_ttl: \${GW_TTL}
backends:
  files:
    type: stdio
    command: \${NODE_BIN}
    args: ["--name", "\${NAME:-files}-\${SUFFIX:-x}", "literal $\${NOT_EXPANDED}"]
    env:
      TOKEN: "Bearer \${TOKEN}"
      EMPTY: "\${EMPTY_VAR:-}"
    cwd: \${WORKDIR:-/tmp}
    enabled: \${FILES_ENABLED:-true}
    filters:
      tools:
        deny: ["\${DENY_GLOB:-delete_*}"]
    rename:
      tools:
        read_file: { name: "\${RENAMED:-fs_read}", description: "from \${HOME_DIR:-home}" }
  web:
    type: streamable-http
    url: http://\${API_HOST:-localhost}:\${API_PORT}/mcp
    headers:
      Authorization: Bearer \${API_TOKEN}
`;
  const env = {
    GW_TTL: '5',
    NODE_BIN: '/usr/bin/node',
    SUFFIX: 'y',
    TOKEN: 's3cret',
    EMPTY_VAR: '',
    NAME: '', // empty: `:-` takes the default
    API_PORT: '8123',
    API_TOKEN: 'abc',
    RENAMED: 'fs_read2',
  };

  it('expands ${VAR} and ${VAR:-default} in every string, at any depth, and keeps $${ literal', () => {
    const cfg = parseConfigText(text, { env });
    const files = cfg.backends.files as StdioBackendSpec;
    const web = cfg.backends.web as HttpBackendSpec;
    expect(cfg.server.host).toBe('127.0.0.1');
    expect(files.command).toBe('/usr/bin/node');
    expect(files.args).toEqual(['--name', 'files-y', 'literal ${NOT_EXPANDED}']);
    expect(files.env).toEqual({ TOKEN: 'Bearer s3cret', EMPTY: '' }); // an explicit empty default
    expect(files.cwd).toBe('/tmp');
    expect(files.filters?.tools?.deny).toEqual(['delete_*']);
    expect(files.rename?.tools?.read_file).toEqual({ name: 'fs_read2', description: 'from home' });
    expect(web.url).toBe('http://localhost:8123/mcp');
    expect(web.headers).toEqual({ Authorization: 'Bearer abc' });
  });

  it('turns expanded numbers and booleans into the types the schema wants', () => {
    const cfg = parseConfigText(text, { env: { ...env, GW_PORT: '9555', FILES_ENABLED: 'false' } });
    expect(cfg.server.port).toBe(9555);
    expect(cfg.server.session_ttl).toBe(5);
    expect(cfg.backends.files.enabled).toBe(false);
    expect(parseConfigText(text, { env }).server.port).toBe(9100);
    expect(parseConfigText(text, { env }).backends.files.enabled).toBe(true);
  });

  it('an unset variable without default is an error naming the variable, the key path and the line', () => {
    const { problems, message } = problemsOf(text, { ...env, API_TOKEN: undefined, GW_TTL: undefined });
    const auth = problemAt(problems, 'backends.web.headers.Authorization');
    expect(auth.message).toContain('API_TOKEN');
    expect(auth.line).toBe(26);
    const ttl = problemAt(problems, 'server.session_ttl');
    expect(ttl.message).toContain('GW_TTL');
    expect(ttl.line).toBe(5);
    // Only those two: the empty values they left behind are not reported again by the schema check.
    expect(problems).toHaveLength(2);
    expect(message).toContain('backends.web.headers.Authorization (line 26');
    expect(message).toContain('API_TOKEN');
  });

  it('reports unset variables and schema problems in the same run', () => {
    const { problems } = problemsOf('server:\n  prot: 1\nbackends:\n  a:\n    type: stdio\n    command: ${UNSET_CMD}\n    comand: x\n');
    expect(problems.map((p) => p.path).sort()).toEqual(['backends.a.comand', 'backends.a.command', 'server.prot']);
    expect(problemAt(problems, 'backends.a.command').message).toContain('UNSET_CMD');
  });

  it('an empty variable without default is an error too, and says it is empty', () => {
    const { problems } = problemsOf('backends:\n  a:\n    type: stdio\n    command: "${EMPTY_CMD}"\n', { EMPTY_CMD: '' });
    expect(problemAt(problems, 'backends.a.command').message).toMatch(/EMPTY_CMD is empty/);
  });

  it('an unset variable inside an array names the array index in the path', () => {
    const { problems } = problemsOf('backends:\n  a:\n    type: stdio\n    command: node\n    args: ["x", "${MISSING_ARG}"]\n');
    const p = problemAt(problems, 'backends.a.args.1');
    expect(p.message).toContain('MISSING_ARG');
    expect(p.line).toBe(5);
  });
});

describe('config: validation errors name the key path and line', () => {
  it('rejects unknown keys at every level', () => {
    const { problems } = problemsOf(`version: "1"
servr:
  port: 1
server:
  hots: x
backends:
  a:
    type: stdio
    command: node
    comand: typo
    timeouts: { connect: 1 }
    filters:
      tools:
        allw: [x]
      toolz: {}
    rename:
      tools:
        x: { nme: y }
conflict_resolution:
  stratgy: prefix
`);
    const expected: Array<[string, number]> = [
      ['servr', 2],
      ['server.hots', 5],
      ['backends.a.comand', 10],
      ['backends.a.timeouts.connect', 11],
      ['backends.a.filters.tools.allw', 14],
      ['backends.a.filters.toolz', 15],
      ['backends.a.rename.tools.x.nme', 18],
      ['conflict_resolution.stratgy', 20],
    ];
    for (const [path, line] of expected) {
      const p = problemAt(problems, path);
      expect(p.message).toMatch(/unknown key/);
      expect(p.line, path).toBe(line);
    }
  });

  it('a typo of a required key is reported as an unknown key too, with the key it most likely meant', () => {
    const { problems, message } = problemsOf(`backends:
  a:
    typ: stdio
    command: node
  b:
    type: stdio
    comand: node
    timeouts: { conect_s: 1 }
  c:
    type: sse
    url: http://x
    hedaers: {}
    zzz: 1
server:
  hots: x
`);
    expect(problemAt(problems, 'backends.a.type')).toMatchObject({ message: expect.stringMatching(/required.*stdio, sse, streamable-http/), line: 2 });
    expect(problemAt(problems, 'backends.a.typ')).toMatchObject({ message: 'unknown key; did you mean `type`?', line: 3, column: 5 });
    expect(problemAt(problems, 'backends.b.command')).toMatchObject({ message: 'is required', line: 5 });
    expect(problemAt(problems, 'backends.b.comand')).toMatchObject({ message: 'unknown key; did you mean `command`?', line: 7, column: 5 });
    expect(problemAt(problems, 'backends.b.timeouts.conect_s')).toMatchObject({ message: 'unknown key; did you mean `connect_s`?', line: 8 });
    expect(problemAt(problems, 'backends.c.hedaers')).toMatchObject({ message: 'unknown key; did you mean `headers`?', line: 12 });
    // Nothing close: no guess.
    expect(problemAt(problems, 'backends.c.zzz')).toMatchObject({ message: 'unknown key', line: 13 });
    expect(problemAt(problems, 'server.hots').message).toBe('unknown key; did you mean `host`?');
    expect(message).toContain('backends.a.typ (line 3, column 5): unknown key; did you mean `type`?');
  });

  it('an unknown key of a backend whose type is wrong is still reported, and a key of another transport says so', () => {
    const { problems } = problemsOf('backends:\n  w:\n    type: websocket\n    comand: x\n  s:\n    type: stdio\n    command: node\n    url: http://x\n');
    expect(problemAt(problems, 'backends.w.comand')).toMatchObject({ message: 'unknown key; did you mean `command`?', line: 4 });
    expect(problemAt(problems, 'backends.s.url').message).toBe('unknown key (a key of sse and streamable-http backends, not of stdio)');
  });

  it('checks each backend against the keys of its own transport', () => {
    const { problems } = problemsOf(`backends:
  s:
    type: stdio
    url: http://x
  h:
    type: streamable-http
    command: node
  e:
    type: sse
    url: ftp://nope
  w:
    type: websocket
  n:
    type: stdio
    command: ""
`);
    expect(problemAt(problems, 'backends.s.url').message).toMatch(/unknown key/);
    expect(problemAt(problems, 'backends.s.command').message).toMatch(/required/);
    expect(problemAt(problems, 'backends.h.command').message).toMatch(/unknown key/);
    expect(problemAt(problems, 'backends.h.url').message).toMatch(/required/);
    expect(problemAt(problems, 'backends.e.url').line).toBe(10);
    const w = problemAt(problems, 'backends.w.type');
    expect(w.message).toContain('stdio, sse, streamable-http');
    expect(w.line).toBe(12);
    expect(problemAt(problems, 'backends.n.command').line).toBe(15);
  });

  it('rejects wrong types and values, all in one error', () => {
    const { problems, message } = problemsOf(`server:
  port: 99999
  session_ttl: -1
conflict_resolution:
  strategy: last-wins
backends:
  a:
    type: stdio
    command: node
    args: node
    timeouts: { request_s: 0 }
    filters: { tools: { deny: "x" } }
`);
    for (const path of [
      'server.port',
      'server.session_ttl',
      'conflict_resolution.strategy',
      'backends.a.args',
      'backends.a.timeouts.request_s',
      'backends.a.filters.tools.deny',
    ]) {
      problemAt(problems, path);
      expect(message).toContain(path);
    }
  });

  it('a value outside a list of choices is one problem naming them all, not one per choice', () => {
    const { problems } = problemsOf(`incoming_auth:
  type: jwt
  issuer: https://issuer.example
  jwks_uri: https://issuer.example/jwks
  audience: https://gw.example/mcp
  algorithms: [HS256, ES256, none]
conflict_resolution:
  strategy: last-wins
`);
    const allowed = 'RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA';
    expect(problems.filter((p) => p.path.startsWith('incoming_auth.algorithms'))).toEqual([
      { path: 'incoming_auth.algorithms.0', message: `must be one of: ${allowed} (got "HS256")`, line: 6, column: 16 },
      { path: 'incoming_auth.algorithms.2', message: `must be one of: ${allowed} (got "none")`, line: 6, column: 30 },
    ]);
    // Any union of literals reads the same.
    expect(problems.filter((p) => p.path === 'conflict_resolution.strategy').map((p) => p.message)).toEqual([
      'must be one of: prefix, first-wins, priority, error (got "last-wins")',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    const bad = problemsOf('backends:\n  a:\n    type: stdio\n   command: [unclosed\n');
    expect(bad.problems.length).toBeGreaterThan(0);
    expect(bad.problems[0].line).toBe(4);
    expect(bad.message).toContain('(line 4');
    const dup = problemsOf('server:\n  port: 1\n  port: 2\n');
    expect(dup.problems[0].message).toMatch(/unique/);
    expect(dup.problems[0].line).toBe(3);
  });

  it('rejects a top level that is not a mapping and a backend that is not a mapping', () => {
    expect(problemsOf('- a\n- b\n').problems[0].message).toMatch(/mapping/);
    expect(problemAt(problemsOf('backends:\n  a: just-a-string\n').problems, 'backends.a').message).toMatch(/mapping/);
  });

  it('rejects backend names that cannot be used as prefixes, or that would lose their config order', () => {
    problemAt(problemsOf('backends:\n  "bad name":\n    type: stdio\n    command: node\n').problems, 'backends.bad name');
    // JS objects put integer-like keys first; config order decides conflicts.
    const numeric = problemAt(
      problemsOf('backends:\n  zeta:\n    type: stdio\n    command: node\n  "10":\n    type: stdio\n    command: node\n').problems,
      'backends.10',
    );
    expect(numeric.message).toMatch(/number/);
    expect(numeric.line).toBe(5);
    expect(Object.keys(parseConfigText('backends:\n  zeta: { type: stdio, command: a }\n  10x: { type: stdio, command: b }\n').backends)).toEqual([
      'zeta',
      '10x',
    ]);
  });
});

describe('config: defaults and every documented backend key', () => {
  it('accepts all backend keys and fills defaults', () => {
    const cfg = parseConfigText(`backends:
  s:
    type: stdio
    command: node
    args: [a, b]
    env: { A: "1" }
    cwd: /tmp
    group: g1
    timeouts: { connect_s: 3, request_s: 4.5 }
    filters:
      tools: { allow: ["a*"], deny: ["ab"] }
      resources: { deny: ["x://*"] }
      prompts: { allow: ["p"] }
    rename:
      tools: { a: { name: b, description: d } }
      prompts: { p: { name: q } }
  e:
    type: sse
    url: http://127.0.0.1:1/sse
    headers: { X-A: b }
  h:
    type: streamable-http
    url: https://example.com/mcp
`);
    expect(cfg.server).toMatchObject({ host: '127.0.0.1', port: 9000, session_ttl: 1800 });
    expect(cfg.conflict_resolution).toEqual({ strategy: 'prefix', separator: '_' });
    expect(cfg.backends.s).toMatchObject({ group: 'g1', timeouts: { connect_s: 3, request_s: 4.5 } });
    expect(cfg.backends.e).toMatchObject({ group: 'default', enabled: true, timeouts: { connect_s: 30, request_s: 60 } });
    expect(Object.keys(cfg.backends)).toEqual(['s', 'e', 'h']); // config order is kept: it decides conflicts
  });

  it('an empty file is a valid config with no backends', () => {
    expect(parseConfigText('').backends).toEqual({});
  });

  it('sessions: the memory store by default; the redis store needs sessions.redis.url', () => {
    expect(parseConfigText('').sessions).toEqual({ store: 'memory', replay_s: 60, redis: { key_prefix: 'mcp-gateway' } });
    const missing = problemAt(problemsOf('sessions:\n  store: redis\n').problems, 'sessions.redis.url');
    expect(missing.message).toMatch(/required with `sessions.store: redis`/);
    expect(problemAt(problemsOf('sessions:\n  store: redis\n  redis: { url: http://x }\n').problems, 'sessions.redis.url').message).toBeDefined();
    const cfg = parseConfigText('sessions:\n  store: redis\n  redis: { url: "${REDIS_URL}", key_prefix: gw2 }\n', {
      env: { REDIS_URL: 'redis://127.0.0.1:6380/2' },
    });
    expect(cfg.sessions).toEqual({ store: 'redis', replay_s: 60, redis: { url: 'redis://127.0.0.1:6380/2', key_prefix: 'gw2' } });
  });
});

describe('config: file lookup', () => {
  const yaml = (name: string) => `backends:\n  ${name}:\n    type: stdio\n    command: node\n`;

  it('uses config.yaml, then config.yml, in the working directory; --config overrides', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-cfg-'));
    expect(() => locateConfigFile(undefined, dir)).toThrow(/config\.yaml.*config\.yml/);
    writeFileSync(join(dir, 'config.yml'), yaml('from_yml'));
    expect(locateConfigFile(undefined, dir)).toBe(join(dir, 'config.yml'));
    writeFileSync(join(dir, 'config.yaml'), yaml('from_yaml'));
    expect(locateConfigFile(undefined, dir)).toBe(join(dir, 'config.yaml'));
    writeFileSync(join(dir, 'other.yaml'), yaml('from_other'));
    expect(locateConfigFile('other.yaml', dir)).toBe(join(dir, 'other.yaml'));
    expect(Object.keys(loadConfigFile(locateConfigFile('other.yaml', dir)).config.backends)).toEqual(['from_other']);
    expect(() => locateConfigFile('missing.yaml', dir)).toThrow(/not found.*missing\.yaml/);
  });
});

describe('config: OAuth client keys', () => {
  it('a private_key that cannot sign is a config error at its key path and line, not a connect failure later', () => {
    const { problems } = problemsOf(
      `
backends:
  remote:
    type: streamable-http
    url: http://127.0.0.1:1/mcp
    auth:
      type: oauth
      grant: client_credentials
      client_id: machine
      private_key: \${KEY}
`,
      { KEY: 'not a key at all' },
    );
    expect(problemAt(problems, 'backends.remote.auth')).toMatchObject({ message: expect.stringMatching(/not a PEM private key/), line: expect.any(Number) });
    // Where secrets are not resolved (config validate), a `secret:` reference is left for later.
    expect(() =>
      parseConfigText(
        'backends:\n  remote:\n    type: sse\n    url: http://127.0.0.1:1/sse\n    auth: { type: oauth, client_id: machine, private_key: "secret:KEY" }\n',
      ),
    ).not.toThrow();
  });
});

describe('config: exposed tool names', () => {
  it('refuses a rename target that breaks the MCP tool-name rules, naming the characters without printing them raw', () => {
    const { problems } = problemsOf(`backends:
  a:
    type: stdio
    command: node
    rename:
      tools:
        echo: { name: "every_\u00e9cho \u2713 \u202eevil" }
        long: { name: "${'x'.repeat(129)}" }
        fine: { name: "ok_name-1.2" }
      prompts:
        greet: { name: "prompts are not tools" }
`);
    const echo = problemAt(problems, 'backends.a.rename.tools.echo.name');
    expect(echo.line).toBe(7);
    expect(echo.message).toContain('is not a valid tool name');
    expect(echo.message).toContain('a space');
    expect(echo.message).toContain('"é" (U+00E9)');
    expect(echo.message).toContain('U+202E');
    expect(echo.message).toContain('letters, digits, "_", "-" and "."');
    // The right-to-left override itself never reaches the message (it would reorder the terminal line).
    expect(echo.message).not.toContain('\u202e');
    expect(problemAt(problems, 'backends.a.rename.tools.long.name').message).toContain('129 characters');
    expect(problems.map((p) => p.path).sort()).toEqual(['backends.a.rename.tools.echo.name', 'backends.a.rename.tools.long.name']);
  });

  it('under prefix, checks the name clients would see, prefix and separator included', () => {
    const target = 'x'.repeat(126);
    const text = (strategy: string) =>
      `conflict_resolution: { strategy: ${strategy} }\nbackends:\n  ab:\n    type: stdio\n    command: node\n    rename: { tools: { t: { name: ${target} } } }\n`;
    const p = problemAt(problemsOf(text('prefix')).problems, 'backends.ab.rename.tools.t.name');
    expect(p.message).toMatch(/with its prefix as "ab_x+" .*129 characters/);
    expect(p.line).toBe(6);
    expect(() => parseConfigText(text('first-wins'))).not.toThrow();
  });

  it('refuses a separator that no tool name may hold', () => {
    const p = problemAt(problemsOf('conflict_resolution: { separator: " / " }\n').problems, 'conflict_resolution.separator');
    expect(p.message).toMatch(/letters, digits/);
    expect(p.line).toBe(1);
  });
});

describe('config: conflict strategy priority', () => {
  it('accepts an order of configured backends', () => {
    const cfg = parseConfigText(
      'conflict_resolution:\n  strategy: priority\n  order: [b, a]\nbackends:\n  a: { type: stdio, command: node }\n  b: { type: stdio, command: node }\n  c: { type: stdio, command: node }\n',
    );
    expect(cfg.conflict_resolution).toEqual({ strategy: 'priority', separator: '_', order: ['b', 'a'] });
  });

  it('a name in order that is not a backend is an error at its path and line, with the backend it most likely meant', () => {
    const { problems } = problemsOf(`conflict_resolution:
  strategy: priority
  order:
    - backend-a
    - backend-c
    - nothing-like-it
backends:
  backend-a: { type: stdio, command: node }
  backend-b: { type: stdio, command: node }
`);
    expect(problemAt(problems, 'conflict_resolution.order.1')).toMatchObject({
      message: "no backend named 'backend-c' in `backends`; did you mean `backend-a`?",
      line: 5,
    });
    expect(problemAt(problems, 'conflict_resolution.order.2')).toMatchObject({ message: "no backend named 'nothing-like-it' in `backends`", line: 6 });
    expect(problems).toHaveLength(2);
  });

  it('order is refused with another strategy, and a name twice is refused', () => {
    const other = problemAt(
      problemsOf('conflict_resolution: { strategy: first-wins, order: [a] }\nbackends:\n  a: { type: stdio, command: node }\n').problems,
      'conflict_resolution.order',
    );
    expect(other.message).toMatch(/only by strategy `priority`/);
    expect(other.line).toBe(1);
    problemAt(
      problemsOf('conflict_resolution: { strategy: priority, order: [a, a] }\nbackends:\n  a: { type: stdio, command: node }\n').problems,
      'conflict_resolution.order',
    );
  });
});
