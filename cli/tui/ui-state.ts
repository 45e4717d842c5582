/**
 * What the TUI shows besides the gateway's data: the stack of pages (a view
 * at the bottom, details opened from it above), the line being typed, an
 * overlay, the last message. Immutable: every change makes a new object.
 */
import type { EventRecord, RegistryServer, ToolSearch } from '../client/api-types.js';
import type { ServerChoice } from '../servers/server-choices.js';
import type { LineBuffer } from './line-editor.js';
import type { Line } from './text.js';

/** The views, in the order of their number keys (1 to 9, then 0). */
export const VIEWS = ['dashboard', 'backends', 'tools', 'resources', 'sessions', 'events', 'skills', 'registry', 'servers', 'plugins'] as const;
export type ViewName = (typeof VIEWS)[number];

/** Detail pages, opened from a view. */
export type DetailKind = 'backend' | 'backend-log' | 'tool' | 'resource' | 'prompt' | 'event' | 'registry-entry';
export type PageKind = ViewName | DetailKind;

export const SEVERITY_LEVELS = ['debug', 'info', 'warning', 'error'] as const;

export interface Page {
  id: number;
  kind: PageKind;
  /** What a detail page is about: a backend or tool name, a URI, an event key. */
  subject?: string;
  /** Selected row of a table page. */
  cursor: number;
  /** First line shown of a text page. */
  scroll: number;
  /** `/` filter: rows or lines containing it (case-insensitive). */
  filter: string;
  /** The page's own text field when it has one (tool arguments, a registry query). */
  field?: string;
  /** An answer the page asked for, ready to show. */
  result?: { lines: Line[]; failed: boolean };
  /** A request of the page is out. */
  busy?: boolean;
  /** Events view: the list as it was when paused (undefined: following). */
  frozen?: EventRecord[];
  /** Events view: the lowest severity shown (undefined: all). */
  minSeverity?: (typeof SEVERITY_LEVELS)[number];
  /** Registry view: the last search's results. */
  found?: RegistryServer[];
  /** Tools view: the last tool search's matches, best first (undefined: every tool, by name). */
  toolHits?: ToolSearch['tools'];
}

export interface InputState extends LineBuffer {
  purpose: 'filter' | 'command' | 'field';
  /** Shown before the text. */
  prompt: string;
  /** The page a field belongs to. */
  pageId?: number;
  /** Characters from this word on are shown masked (a token typed into the add-server line). */
  maskFromWord?: number;
}

export type Overlay = { kind: 'help' } | { kind: 'confirm'; message: string; onYes: () => void } | { kind: 'message'; title: string; lines: Line[] };

export type FlashLevel = 'info' | 'error';

/** A footer message: it belongs to the page it was made on, and shows only there. */
export interface Flash {
  text: string;
  level: FlashLevel;
  pageId: number;
}

export interface UiState {
  /** Never empty; the first is a view. */
  stack: Page[];
  input?: InputState;
  overlay?: Overlay;
  flash?: Flash;
  columns: number;
  rows: number;
  servers: ServerChoice[];
  active: ServerChoice;
  readOnly: boolean;
}

let nextPageId = 1;

export function newPage(kind: PageKind, subject?: string): Page {
  return { id: nextPageId++, kind, subject, cursor: 0, scroll: 0, filter: '' };
}

export const currentPage = (ui: UiState): Page => ui.stack[ui.stack.length - 1];

/** The footer message of the page on screen, if it has one. */
export const currentFlash = (ui: UiState): Flash | undefined => (ui.flash?.pageId === currentPage(ui).id ? ui.flash : undefined);
