/**
 * What a page is, as data: its title, a table or lines to show, and its key
 * bindings. Pages are computed from the current state when drawn and again
 * when a key arrives, so a key always acts on what is on the screen now.
 */
import type { GatewaySnapshot } from './data/live-gateway.js';
import type { Page, UiState } from './ui-state.js';
import type { Line, Segment } from './text.js';
import type { PageHost } from './page-host.js';

export interface PageContext {
  /** What the page may ask of the TUI. */
  tui: PageHost;
  page: Page;
  ui: UiState;
  data: GatewaySnapshot;
  /** Width of the page's area in characters. */
  width: number;
}

export type Cell = string | Segment;

export interface Row {
  /** What the row stands for (a backend name, a tool name…), handed to bindings. */
  key: string;
  cells: Cell[];
}

export interface Column {
  header: string;
  /** Takes the room left over (at most one column). */
  flex?: boolean;
}

export interface TableContent {
  columns: Column[];
  rows: Row[];
  /** Shown instead of rows when there are none. */
  empty: string;
  /** Lines above the table (a search box, a warning). */
  above?: Line[];
}

export interface Binding {
  /** Key specs (keys.ts `keyMatches`); the first is shown. */
  keys: string[];
  label: string;
  /** Changes something (the gateway, the servers file): hidden with --read-only. */
  action?: boolean;
  /** `row` is the selected row of a table page; bindings that need one are skipped when there is none. */
  run(ctx: PageContext, row: Row | undefined): void;
  needsRow?: boolean;
}

export interface PageSpec {
  title(ctx: PageContext): string;
  /** A table page… */
  table?(ctx: PageContext): TableContent;
  /** …or a text page. */
  lines?(ctx: PageContext): Line[];
  bindings?(ctx: PageContext): Binding[];
  /** Called when the page is opened (to fetch what it shows). */
  open?(ctx: PageContext): void;
  /** The page's text field was submitted. */
  submit?(ctx: PageContext, text: string): void;
}
