/**
 * The TUI's pure parts: decoding terminal input into keystrokes, editing a
 * line, the `:` commands, fitting columns, and the servers file (spec 2.1)
 * with the list of servers built from it, --server and the local sessions;
 * and the module graph of cli/tui (no import cycle).
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { repoRoot } from '../../../fixtures/spawn.js';
import { decodeKeys, keyMatches } from '../../../../cli/tui/keys.js';
import { bufferOf, editLine, type LineBuffer } from '../../../../cli/tui/line-editor.js';
import { completeCommand, resolveCommand } from '../../../../cli/tui/commands.js';
import { alignedLines, fitColumns, fitText } from '../../../../cli/tui/columns.js';
import { field, layoutFields } from '../../../../cli/tui/views/fields.js';
import { lineText } from '../../../../cli/tui/text.js';
import { mergeEvents } from '../../../../cli/tui/data/live-gateway.js';
import { createElement } from 'react';
import { render } from 'ink-testing-library';
import { terminalSafe } from '../../../../cli/output/terminal-safe.js';
import { cellText } from '../../../../cli/tui/filter.js';
import { StyledLine } from '../../../../cli/tui/components/styled-line.js';
import { argumentSkeleton, parseArguments } from '../../../../cli/tui/views/json-field.js';
import {
  defaultServersFilePath,
  readServersFile,
  ServersFileError,
  withActive,
  withServer,
  withoutServer,
  writeServersFile,
} from '../../../../cli/servers/servers-file.js';
import { serverChoices } from '../../../../cli/servers/server-choices.js';
import { claimSession } from '../../../../cli/sessions/session-files.js';

const names = (data: string) => decodeKeys(data).map((k) => (k.ctrl ? `ctrl+${k.name}` : k.name));

describe('module graph', () => {
  /** The cli/tui files each file imports (`import type` included: a type cycle couples files as much as any). */
  function tuiImports(): Map<string, string[]> {
    const root = join(repoRoot(), 'cli', 'tui');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f))
      .map((f) => join(root, f));
    const graph = new Map<string, string[]>();
    for (const file of files) {
      const imported = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles.map((i) => i.fileName);
      const local = imported
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, ''))
        .flatMap((base) => ['.ts', '.tsx'].map((ext) => base + ext).filter((f) => existsSync(f) && f.startsWith(root)));
      graph.set(
        relative(root, file),
        local.map((f) => relative(root, f)),
      );
    }
    return graph;
  }

  it('has no import cycle in cli/tui: pages get a PageHost, not the controller', () => {
    const graph = tuiImports();
    expect(graph.get('page-spec.ts')).toContain('page-host.ts');
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') return void cycles.push([...path.slice(path.indexOf(file)), file].join(' > '));
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

describe('keystrokes', () => {
  it('splits runs of characters, control characters and escape sequences into single keys, in order', () => {
    expect(names('jjk')).toEqual(['j', 'j', 'k']);
    expect(names('ab\r')).toEqual(['a', 'b', 'return']);
    expect(names('x\x7f\b')).toEqual(['x', 'backspace', 'backspace']);
    expect(names('\x12\x03\t')).toEqual(['ctrl+r', 'ctrl+c', 'tab']);
    expect(names('\x1b')).toEqual(['escape']);
    expect(names('\x1b:')).toEqual(['escape', ':']);
    expect(names('\x1bq')).toEqual(['escape', 'q']);
    expect(names('\x1b\x1b')).toEqual(['escape', 'escape']);
    expect(names('\x1b[A')).toEqual(['up']);
    expect(names('\x1bOB')).toEqual(['down']);
    expect(names('\x1b[1;5C')).toEqual(['right']);
    expect(names('\x1b[5~')).toEqual(['pageup']);
    expect(names('\x1b[6~')).toEqual(['pagedown']);
    expect(names('\x1b[H')).toEqual(['home']);
    expect(names('\x1b[4~')).toEqual(['end']);
    expect(names('\x1b[3~')).toEqual(['delete']);
    expect(names('\x1b[Z')).toEqual(['backtab']);
    expect(names('a\x1b[Ab\x1b[6~\x1b')).toEqual(['a', 'up', 'b', 'pagedown', 'escape']);
    expect(decodeKeys('ä€😀').map((k) => k.text)).toEqual(['ä', '€', '😀']);
  });

  it('matches binding specs', () => {
    const [r] = decodeKeys('r');
    const [ctrlR] = decodeKeys('\x12');
    const [enter] = decodeKeys('\r');
    const [G] = decodeKeys('G');
    expect(keyMatches(r, 'r')).toBe(true);
    expect(keyMatches(ctrlR, 'r')).toBe(false);
    expect(keyMatches(ctrlR, 'ctrl+r')).toBe(true);
    expect(keyMatches(enter, 'enter')).toBe(true);
    expect(keyMatches(G, 'g')).toBe(false);
    expect(keyMatches(G, 'G')).toBe(true);
  });
});

describe('line editor', () => {
  const type = (buf: LineBuffer, data: string) => decodeKeys(data).reduce((b, k) => editLine(b, k) ?? b, buf);

  it('inserts at the cursor, moves, deletes backwards and forwards, and kills words and lines', () => {
    let b = type(bufferOf(''), 'hello world');
    expect(b).toEqual({ text: 'hello world', cursor: 11 });
    b = type(b, '\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x7f_');
    expect(b.text).toBe('hello_world');
    b = type(b, '\x01X\x05Y');
    expect(b.text).toBe('Xhello_worldY');
    b = type(b, '\x17');
    expect(b).toEqual({ text: '', cursor: 0 });
    b = type(bufferOf('one two three'), '\x17');
    expect(b.text).toBe('one two ');
    b = type(bufferOf('abc'), '\x01\x1b[3~');
    expect(b).toEqual({ text: 'bc', cursor: 0 });
    b = type(bufferOf('abc'), '\x1b[D\x0b');
    expect(b.text).toBe('ab');
    b = type(bufferOf('abc'), '\x1b[D\x15');
    expect(b).toEqual({ text: 'c', cursor: 0 });
    // Multi-unit characters move and delete as one.
    b = type(bufferOf('a😀'), '\x7f');
    expect(b.text).toBe('a');
    expect(editLine(bufferOf('x'), decodeKeys('\r')[0])).toBeUndefined();
  });
});

describe(': commands', () => {
  it('resolves names, aliases and unique prefixes, and completes with Tab', () => {
    expect(resolveCommand('backends')).toEqual({ view: 'backends' });
    expect(resolveCommand('be')).toEqual({ view: 'backends' });
    expect(resolveCommand('ev')).toEqual({ view: 'events' });
    expect(resolveCommand('reg')).toEqual({ view: 'registry' });
    expect(resolveCommand('q')).toEqual({ run: 'quit' });
    expect(resolveCommand('se')).toBeUndefined(); // sessions or servers
    expect(resolveCommand('nonsense')).toBeUndefined();
    expect(completeCommand('ba')).toBe('backends');
    expect(completeCommand('se')).toBe('se');
    expect(completeCommand('ses')).toBe('sessions');
    expect(completeCommand('re')).toBe('re');
    expect(completeCommand('xyz')).toBe('xyz');
  });
});

describe('columns', () => {
  it('gives the flex column the room left; when too wide, shrinks the flex column first, then the widest', () => {
    expect(fitColumns([4, 6, 10], 2, 40)).toEqual([4, 6, 26]);
    expect(fitColumns([4, 6, 10], -1, 40)).toEqual([4, 6, 10]);
    const narrow = fitColumns([10, 30, 40], 2, 50);
    expect(narrow.reduce((a, b) => a + b, 0) + 4).toBe(50);
    expect(narrow[0]).toBe(10);
    // The flex column gives way first, down to 16 cells; then the widest.
    expect(fitColumns([20, 8, 40], 2, 60)).toEqual([20, 8, 28]);
    expect(fitColumns([30, 8, 40], 2, 50)).toEqual([22, 8, 16]);
    expect(fitText('abcdef', 4)).toBe('abc…');
    expect(fitText('ab', 4)).toBe('ab  ');
    expect(fitText('日本語テキスト', 7)).toBe('日本語…');
  });

  it('aligns the rows of a detail page by terminal cells, dropping a column empty in every row', () => {
    const lines = alignedLines([
      ['日本語', '', 'wide'],
      ['a-much-longer-name', '', 'narrow'],
    ]).map(lineText);
    expect(lines).toEqual(['日本語              wide', 'a-much-longer-name  narrow']);
  });

  it('puts every field value of a page at one column, a long text wrapping under itself', () => {
    const lines = layoutFields([field('Name', 'x'), [{ text: 'Section' }], field('Description', 'abcdefghijklmnop')], 20).map(lineText);
    expect(lines).toEqual(['Name         x', 'Section', 'Description  abcdefg', '             hijklmn', '             op']);
  });
});

describe('events and arguments', () => {
  const ev = (id: string, timestamp: string) => ({ id, timestamp, stage: 'connected', message: '', severity: 'info', backend: 'b', details: {} });
  it('merges event lists newest first, keeping equal ids of different gateway runs apart', () => {
    const merged = mergeEvents(
      [ev('2', '2026-01-01T00:00:02Z'), ev('1', '2026-01-01T00:00:01Z')],
      [ev('2', '2026-01-01T00:00:02Z'), ev('1', '2026-01-01T00:01:00Z')],
    );
    expect(merged.map((e) => `${e.id}@${e.timestamp.slice(14, 19)}`)).toEqual(['1@01:00', '2@00:02', '1@00:01']);
  });

  it('makes an argument skeleton from a JSON Schema and parses typed arguments', () => {
    expect(
      argumentSkeleton({ properties: { a: { type: 'string' }, n: { type: 'integer' }, f: { type: 'boolean', default: true }, l: { type: 'array' } } }),
    ).toBe('{"a":"","n":0,"f":true,"l":[]}');
    expect(argumentSkeleton(undefined)).toBe('{}');
    expect(parseArguments('{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parseArguments('')).toEqual({ value: {} });
    expect(parseArguments('[1]')).toEqual({ error: 'Arguments must be a JSON object, like {"name": "value"}' });
    expect(parseArguments('{a')).toMatchObject({ error: expect.stringMatching(/^Arguments are not JSON/) });
  });
});

describe('servers file', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'gw-servers-'));

  it('lives in $XDG_CONFIG_HOME/mcp-gateway, else ~/.config/mcp-gateway', () => {
    expect(defaultServersFilePath({ XDG_CONFIG_HOME: '/x' })).toBe('/x/mcp-gateway/servers.json');
    expect(defaultServersFilePath({ HOME: '/home/me' })).toBe('/home/me/.config/mcp-gateway/servers.json');
  });

  it('reads, adds, activates and removes, writing mode 0600 even over a looser file', () => {
    const dir = tmp();
    const path = join(dir, 'nested', 'servers.json');
    expect(readServersFile(path)).toEqual({ servers: [] });
    let file = withServer({ servers: [] }, { name: 'dev', url: '127.0.0.1:9100/mcp', token: 't0k' });
    file = withActive(withServer(file, { name: 'prod', url: 'https://gw.example.com/manage/v1' }), 'prod');
    writeServersFile(path, file);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'nested')).mode & 0o777).toBe(0o700);
    expect(readServersFile(path)).toEqual({
      servers: [
        { name: 'dev', url: 'http://127.0.0.1:9100', token: 't0k' },
        { name: 'prod', url: 'https://gw.example.com' },
      ],
      active: 'prod',
    });
    chmodSync(path, 0o644);
    writeServersFile(path, withoutServer(readServersFile(path), 'prod'));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ servers: [{ name: 'dev', url: 'http://127.0.0.1:9100', token: 't0k' }] });

    expect(() => withServer(readServersFile(path), { name: 'dev', url: 'http://x' })).toThrow('A server named "dev" is already in the file');
    expect(() => withServer(readServersFile(path), { name: 'bad', url: 'ftp://x' })).toThrow('Invalid server URL: ftp://x (http or https only)');
    expect(() => withServer(readServersFile(path), { name: 'two words', url: 'http://x' })).toThrow(/Invalid server name/);
    expect(() => withActive(readServersFile(path), 'nope')).toThrow('No server named "nope" in the file');
  });

  it('refuses a broken file with its path and the problem', () => {
    const dir = tmp();
    const path = join(dir, 'servers.json');
    writeFileSync(path, '{ not json');
    expect(() => readServersFile(path)).toThrow(ServersFileError);
    expect(() => readServersFile(path)).toThrow(new RegExp(`^Servers file ${path}: not JSON`));
    writeFileSync(path, JSON.stringify({ servers: [{ name: 'a' }] }));
    expect(() => readServersFile(path)).toThrow(/\/servers\/0\/url/);
    writeFileSync(
      path,
      JSON.stringify({
        servers: [
          { name: 'a', url: 'http://a' },
          { name: 'a', url: 'http://b' },
        ],
      }),
    );
    expect(() => readServersFile(path)).toThrow('two servers are named "a"');
  });

  it('offers the file, --server and the running local sessions, and picks the active one', () => {
    const state = tmp();
    const env = { GATEWAY_STATE_DIR: state, GATEWAY_MGMT_TOKEN: 'env-token' };
    const file = {
      servers: [
        { name: 'dev', url: 'http://127.0.0.1:9100', token: 'dev-token' },
        { name: 'prod', url: 'http://127.0.0.1:9200' },
        { name: 'remote', url: 'https://gateway.example.com' },
      ],
      active: 'prod',
    };
    // This test process stands in for a running gateway session (it started before now).
    const started = new Date().toISOString();
    expect(
      claimSession({ name: 'local', pid: process.pid, host: '127.0.0.1', port: 9300, config: '/c.yaml', log_file: '/l.log', started_at: started }, env),
    ).toEqual({
      claimed: true,
    });

    const fromFile = serverChoices({ file, env });
    expect(fromFile.active).toMatchObject({ name: 'prod', source: 'file', token: 'env-token' });
    expect(fromFile.choices.map((c) => [c.name, c.source, c.token])).toEqual([
      ['dev', 'file', 'dev-token'],
      ['prod', 'file', 'env-token'],
      // A remote entry without a token of its own is not sent the local fallback token.
      ['remote', 'file', undefined],
      ['session/local', 'session', 'env-token'],
    ]);
    expect(fromFile.choices[3]).toMatchObject({ url: 'http://127.0.0.1:9300', logFile: '/l.log' });

    // --server naming a URL of the file picks that entry; --token then wins for it.
    expect(serverChoices({ file, server: '127.0.0.1:9100', token: 'flag-token', env }).active).toMatchObject({ name: 'dev', token: 'flag-token' });
    // Another URL is added as its own entry.
    const adhoc = serverChoices({ file, server: 'http://127.0.0.1:9999/mcp', env });
    expect(adhoc.active).toMatchObject({ name: '127.0.0.1:9999', url: 'http://127.0.0.1:9999', source: 'flag' });
    // No file: the default session's URL, else the fallback.
    expect(serverChoices({ file: { servers: [] }, env: { GATEWAY_STATE_DIR: tmp() } }).active).toMatchObject({
      url: 'http://127.0.0.1:9000',
      source: 'default',
    });
    expect(serverChoices({ file: { servers: [] }, env: { GATEWAY_STATE_DIR: tmp(), GATEWAY_URL: 'http://10.0.0.1:1' } }).active).toMatchObject({
      url: 'http://10.0.0.1:1',
    });
    // No file and nothing naming a server, but a local session runs: that session, not the fallback URL.
    const noFile = serverChoices({ file: { servers: [] }, env });
    expect(noFile.active).toMatchObject({ name: 'session/local', url: 'http://127.0.0.1:9300', source: 'session' });
    expect(noFile.choices.map((c) => c.source)).toEqual(['session']);
  });
});

describe('backend text on the terminal', () => {
  it('drops escape sequences and shows other control characters as "?", keeping newlines and tabs', () => {
    const hostile = 'a\u001b]52;c;aGVsbG8=\u0007b\u001b[2Jc\rd\u0000e\u009bf\tg\nh';
    expect(terminalSafe(hostile)).toBe('abc?d?e\tg\nh'); // \u009b is a CSI introducer: it takes the 'f' with it
    expect(cellText({ text: 'x\u001b]0;title\u0007y' })).toBe('xy');
    const drawn = render(createElement(StyledLine, { line: [{ text: 'stderr: \u001b]52;c;aGVsbG8=\u0007done\rX' }] }));
    expect(drawn.lastFrame()).toContain('stderr: done?X');
    expect(drawn.lastFrame()).not.toContain(']52;');
    drawn.unmount();
  });
});
