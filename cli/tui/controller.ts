/**
 * The TUI's brain, outside React: the UI state, the live data of the active
 * gateway, and every keystroke. Keys are applied one at a time, in order, to
 * the newest state as they arrive (never to a stale copy captured by a
 * render), so nothing typed fast is dropped or reordered. React only draws
 * `getState()` (useSyncExternalStore).
 */
import { ManagementClient } from '../client/management-client.js';
import type { ServerChoice } from '../servers/server-choices.js';
import type { ServerDirectory } from '../servers/server-directory.js';
import { LiveGateway, type GatewaySnapshot } from './data/live-gateway.js';
import { decodeKeys, keyMatches, type Keystroke } from './keys.js';
import { bufferOf, editLine } from './line-editor.js';
import { completeCommand, resolveCommand } from './commands.js';
import { pageRows } from './layout.js';
import {
  currentPage,
  newPage,
  type FlashLevel,
  type InputState,
  type Overlay,
  type Page,
  type PageKind,
  type UiState,
  type ViewName,
  VIEWS,
} from './ui-state.js';
import type { Binding, PageContext } from './page-spec.js';
import type { Outcome, PageHost } from './page-host.js';
import { PAGES } from './views/pages.js';
import { filterLines, filterRows } from './filter.js';
import type { Line } from './text.js';
import { GLOBAL_KEYS, NAVIGATION_KEYS } from './help.js';

export interface TuiState {
  ui: UiState;
  data: GatewaySnapshot;
}

export interface TuiOptions {
  servers: ServerChoice[];
  active: ServerChoice;
  readOnly?: boolean;
  columns?: number;
  rows?: number;
  /** Poll interval of the gateway's data (default 2 s). */
  pollMs?: number;
  startView?: ViewName;
  /** The servers file behind the Servers view (none: the view lists `servers` only). */
  directory?: ServerDirectory;
}

const FLASH_MS = 8000;

export class TuiController implements PageHost {
  private state: TuiState;
  private live: LiveGateway;
  private unsubscribeLive: () => void = () => undefined;
  private readonly listeners = new Set<() => void>();
  private quitHandler?: () => void;
  private flashTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: TuiOptions) {
    this.live = this.connect(opts.active);
    const ui: UiState = {
      stack: [newPage(opts.startView ?? 'dashboard')],
      columns: opts.columns ?? 80,
      rows: opts.rows ?? 24,
      servers: opts.servers,
      active: opts.active,
      readOnly: opts.readOnly ?? false,
    };
    this.state = { ui, data: this.live.snapshot };
  }

  start(): this {
    this.live.start();
    this.openPage(currentPage(this.state.ui));
    return this;
  }

  // --- for React ---

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getState = (): TuiState => this.state;

  /** Every input event (an escape sequence or a run of characters): decoded into keystrokes, each applied in order. */
  handleInput = (data: string): void => {
    for (const k of decodeKeys(data)) {
      if (this.closed) return;
      try {
        this.handleKey(k);
      } catch (err) {
        this.flash(`Internal error: ${(err as Error).message}`, 'error');
      }
    }
  };

  onQuit(handler: () => void): void {
    this.quitHandler = handler;
  }

  setSize(columns: number, rows: number): void {
    if (columns === this.state.ui.columns && rows === this.state.ui.rows) return;
    this.setUi({ columns, rows });
  }

  // --- for pages ---

  get client(): ManagementClient {
    return this.live.client;
  }

  get directory(): ServerDirectory | undefined {
    return this.opts.directory;
  }

  get activeServer(): ServerChoice {
    return this.state.ui.active;
  }

  loadEvents(): void {
    void this.live.loadEvents();
  }

  context(page: Page = currentPage(this.state.ui)): PageContext {
    return { tui: this, page, ui: this.state.ui, data: this.state.data, width: this.state.ui.columns };
  }

  /** Opens a detail page above the current one. */
  push(kind: PageKind, subject?: string, init: Partial<Page> = {}): void {
    const page = { ...newPage(kind, subject), ...init };
    this.setUi({ stack: [...this.state.ui.stack, page] });
    this.openPage(page);
  }

  jump(view: ViewName): void {
    const root = this.state.ui.stack[0];
    const page = root.kind === view ? root : newPage(view);
    this.setUi({ stack: [page], input: undefined, overlay: undefined });
    this.openPage(page);
  }

  back(): void {
    if (this.state.ui.stack.length > 1) this.setUi({ stack: this.state.ui.stack.slice(0, -1) });
  }

  /** Changes a page wherever it is in the stack; a page closed meanwhile is left alone. */
  updatePage(id: number, patch: Partial<Page> | ((p: Page) => Partial<Page>)): void {
    const stack = this.state.ui.stack.map((p) => (p.id === id ? { ...p, ...(typeof patch === 'function' ? patch(p) : patch) } : p));
    this.setUi({ stack });
  }

  /** Asks for text in the footer; the page's `submit` gets it. */
  editField(page: Page, prompt: string, initial: string, maskFromWord?: number): void {
    this.setUi({ input: { purpose: 'field', prompt, pageId: page.id, maskFromWord, ...bufferOf(initial) } });
  }

  confirm(message: string, onYes: () => void): void {
    this.setUi({ overlay: { kind: 'confirm', message, onYes } });
  }

  showMessage(title: string, lines: Line[]): void {
    this.setUi({ overlay: { kind: 'message', title, lines } });
  }

  flash(text: string, level: FlashLevel = 'info', pageId = currentPage(this.state.ui).id): void {
    clearTimeout(this.flashTimer);
    this.setUi({ flash: { text, level, pageId } });
    this.flashTimer = setTimeout(() => this.setUi({ flash: undefined }), FLASH_MS);
    this.flashTimer.unref();
  }

  /** Runs an action against the gateway: its outcome as a message on the page it started on (the user may have moved on), then fresh data. */
  act<T>(work: () => Promise<T>, outcome: (value: T) => Outcome | void): void {
    const pageId = currentPage(this.state.ui).id;
    work().then(
      (value) => {
        const o = outcome(value);
        if (o) this.flash(o.text, o.level, pageId);
        this.live.refresh();
      },
      (err: Error) => this.flash(err.message, 'error', pageId),
    );
  }

  /** Runs a page's request: the page is busy meanwhile and shows what `show` makes of the answer, or the error. */
  request<T>(page: Page, work: () => Promise<T>, show: (value: T) => { lines: Line[]; failed?: boolean }): void {
    this.updatePage(page.id, { busy: true, result: undefined });
    work().then(
      (value) => {
        const shown = show(value);
        this.updatePage(page.id, { busy: false, result: { lines: shown.lines, failed: shown.failed ?? false } });
      },
      (err: Error) => this.updatePage(page.id, { busy: false, result: { lines: [[{ text: err.message, color: 'red' }]], failed: true } }),
    );
  }

  /** Talks to another gateway from now on; the view stays, its details close. */
  switchServer(choice: ServerChoice): void {
    this.unsubscribeLive();
    this.live.close();
    this.live = this.connect(choice);
    const root = newPage(this.state.ui.stack[0].kind);
    this.state = { ui: { ...this.state.ui, active: choice, stack: [root] }, data: this.live.snapshot };
    this.live.start();
    this.emit();
    this.openPage(root);
  }

  setServers(servers: ServerChoice[], active = this.state.ui.active): void {
    this.setUi({ servers, active });
  }

  quit(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.flashTimer);
    this.unsubscribeLive();
    this.live.close();
    this.quitHandler?.();
  }

  // --- keys ---

  private handleKey(k: Keystroke): void {
    if (k.ctrl && k.name === 'c') return this.quit();
    const ui = this.state.ui;
    if (ui.overlay) return this.overlayKey(ui.overlay, k);
    if (ui.input) return this.inputKey(ui.input, k);
    const ctx = this.context();
    const spec = PAGES[ctx.page.kind];
    const row = spec.table ? filterRows(spec.table(ctx).rows, ctx.page.filter)[ctx.page.cursor] : undefined;
    const binding = this.bindings(ctx).find((b) => b.keys.some((s) => keyMatches(k, s)) && (!b.needsRow || row));
    if (binding) return binding.run(ctx, row);
    if (this.navigate(ctx, k)) return;
    this.globalKey(ctx, k);
  }

  /** The current page's bindings that apply (actions hidden with --read-only). */
  bindings(ctx: PageContext = this.context()): Binding[] {
    const all = PAGES[ctx.page.kind].bindings?.(ctx) ?? [];
    return ctx.ui.readOnly ? all.filter((b) => !b.action) : all;
  }

  private globalKey(ctx: PageContext, k: Keystroke): void {
    const is = (spec: string) => keyMatches(k, spec);
    if (is(':')) return this.setUi({ input: { purpose: 'command', prompt: ':', ...bufferOf('') } });
    if (is('/')) return this.setUi({ input: { purpose: 'filter', prompt: '/', ...bufferOf(ctx.page.filter) } });
    if (is('?')) return this.setUi({ overlay: { kind: 'help' } });
    if (is('q')) return this.quit();
    if (is('esc')) {
      if (ctx.page.filter) return this.updatePage(ctx.page.id, { filter: '', cursor: 0, scroll: 0 });
      return this.back();
    }
    if (is('ctrl+r') && !ctx.ui.readOnly) return this.confirmReload();
    const digit = Number(k.name);
    // 1 to 9, then 0 for the tenth.
    const view = /^\d$/.test(k.name) && !k.ctrl ? VIEWS[(digit + 9) % 10] : undefined;
    if (view !== undefined) return this.jump(view);
  }

  private navigate(ctx: PageContext, k: Keystroke): boolean {
    const key = k.ctrl ? `ctrl+${k.name}` : k.name;
    const spec = PAGES[ctx.page.kind];
    const table = spec.table?.(ctx);
    const height = pageRows(ctx.ui, ctx.data) - (table ? 1 + (table.above?.length ?? 0) : 0);
    const delta = NAVIGATION_DELTAS[key]?.(height);
    if (delta === undefined) return false;
    if (table) {
      const count = filterRows(table.rows, ctx.page.filter).length;
      this.updatePage(ctx.page.id, { cursor: clamp(ctx.page.cursor + delta, 0, count - 1) });
    } else {
      const count = filterLines(spec.lines?.(ctx) ?? [], ctx.page.filter).length;
      this.updatePage(ctx.page.id, { scroll: clamp(ctx.page.scroll + delta, 0, count - height) });
    }
    return true;
  }

  private overlayKey(overlay: Overlay, k: Keystroke): void {
    if (overlay.kind === 'confirm') {
      if (keyMatches(k, 'y') || keyMatches(k, 'enter')) {
        this.setUi({ overlay: undefined });
        overlay.onYes();
      } else if (keyMatches(k, 'n') || keyMatches(k, 'esc') || keyMatches(k, 'q')) this.setUi({ overlay: undefined });
      return;
    }
    if (keyMatches(k, 'esc') || keyMatches(k, 'q') || keyMatches(k, 'enter') || keyMatches(k, '?')) this.setUi({ overlay: undefined });
  }

  private inputKey(input: InputState, k: Keystroke): void {
    const page = currentPage(this.state.ui);
    if (keyMatches(k, 'esc')) {
      this.setUi({ input: undefined });
      if (input.purpose === 'filter') this.updatePage(page.id, { filter: '', cursor: 0, scroll: 0 });
      return;
    }
    if (keyMatches(k, 'enter')) {
      this.setUi({ input: undefined });
      if (input.purpose === 'command') return this.runCommand(input.text);
      if (input.purpose === 'field') {
        const target = this.state.ui.stack.find((p) => p.id === input.pageId);
        if (target) PAGES[target.kind].submit?.(this.context(target), input.text);
      }
      return;
    }
    if (input.purpose === 'command' && keyMatches(k, 'tab')) return this.setUi({ input: { ...input, ...bufferOf(completeCommand(input.text)) } });
    const next = editLine(input, k);
    if (!next) return;
    this.setUi({ input: { ...input, ...next } });
    // The filter applies as it is typed.
    if (input.purpose === 'filter' && next.text !== input.text) this.updatePage(page.id, { filter: next.text, cursor: 0, scroll: 0 });
  }

  private runCommand(text: string): void {
    if (!text.trim()) return;
    const target = resolveCommand(text);
    if (!target) return this.flash(`Unknown command "${text.trim()}": a view name (${VIEWS.join(', ')}), reload, help or quit`, 'error');
    if ('view' in target) return this.jump(target.view);
    if (target.run === 'quit') return this.quit();
    if (target.run === 'help') return this.setUi({ overlay: { kind: 'help' } });
    if (this.state.ui.readOnly) return this.flash('Read-only: reload is not available', 'error');
    this.confirmReload();
  }

  private confirmReload(): void {
    this.confirm('Reload the gateway configuration?', () =>
      this.act(
        () => this.client.reload(),
        (r) => {
          if (r.errors.length) return { text: `Reload refused: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, level: 'error' };
          const parts = [...r.backends_added.map((n) => `+${n}`), ...r.backends_removed.map((n) => `-${n}`), ...r.backends_changed.map((n) => `~${n}`)];
          return { text: `Configuration reloaded${parts.length ? `: ${parts.join(' ')}` : ' (no backend changed)'}` };
        },
      ),
    );
  }

  /** Help: the current page's keys, then moving around, then everywhere. */
  helpSections(): Array<{ title: string; keys: Array<[string, string]> }> {
    const ctx = this.context();
    const own = this.bindings(ctx).map((b): [string, string] => [b.keys[0], b.label]);
    const global = GLOBAL_KEYS.filter(([key]) => !(ctx.ui.readOnly && key === 'ctrl+r'));
    return [
      { title: `${PAGES[ctx.page.kind].title(ctx)}`, keys: own },
      { title: 'Moving', keys: NAVIGATION_KEYS },
      { title: 'Everywhere', keys: global },
    ];
  }

  // --- internals ---

  private connect(choice: ServerChoice): LiveGateway {
    const live = new LiveGateway(new ManagementClient({ baseUrl: choice.url, token: choice.token }), { pollMs: this.opts.pollMs });
    this.unsubscribeLive = live.subscribe(() => {
      if (live !== this.live) return;
      this.state = { ...this.state, data: live.snapshot };
      this.emit();
    });
    return live;
  }

  private openPage(page: Page): void {
    PAGES[page.kind].open?.(this.context(page));
  }

  private setUi(patch: Partial<UiState>): void {
    if (this.closed && !('flash' in patch)) return;
    this.state = { ...this.state, ui: { ...this.state.ui, ...patch } };
    this.emit();
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}

const NAVIGATION_DELTAS: Record<string, (height: number) => number> = {
  j: () => 1,
  down: () => 1,
  k: () => -1,
  up: () => -1,
  g: () => -Infinity,
  home: () => -Infinity,
  G: () => Infinity,
  end: () => Infinity,
  pagedown: (h) => Math.max(1, h - 1),
  'ctrl+f': (h) => Math.max(1, h - 1),
  'ctrl+d': (h) => Math.max(1, Math.floor(h / 2)),
  pageup: (h) => -Math.max(1, h - 1),
  'ctrl+b': (h) => -Math.max(1, h - 1),
  'ctrl+u': (h) => -Math.max(1, Math.floor(h / 2)),
};

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(Math.max(min, max), value));
}
