/**
 * All a page may ask of the TUI (`ctx.tui`): open and change pages, ask for
 * text or a yes, show a message, run work against the gateway. The
 * controller implements it and imports every page; pages know only this, so
 * no import (type-only ones included) runs from a page back to the controller.
 */
import type { ManagementClient } from '../client/management-client.js';
import type { ServerChoice } from '../servers/server-choices.js';
import type { ServerDirectory } from '../servers/server-directory.js';
import type { Line } from './text.js';
import type { FlashLevel, Page, PageKind } from './ui-state.js';

/** What an action's answer means to the user, shown in the footer of the page it was started on. */
export interface Outcome {
  text: string;
  level?: FlashLevel;
}

export interface PageHost {
  /** The active gateway's management API. */
  readonly client: ManagementClient;
  /** The servers file behind the Servers view, when there is one. */
  readonly directory: ServerDirectory | undefined;
  /** The server talked to now (a context made before a switch still names the old one). */
  readonly activeServer: ServerChoice;

  /** Opens a detail page above the current one. */
  push(kind: PageKind, subject?: string, init?: Partial<Page>): void;
  /** Changes a page wherever it is in the stack; a page closed meanwhile is left alone. */
  updatePage(id: number, patch: Partial<Page> | ((p: Page) => Partial<Page>)): void;
  /** Asks for text in the footer; the page's `submit` gets it. */
  editField(page: Page, prompt: string, initial: string, maskFromWord?: number): void;
  /** Asks y/n first; `onYes` runs on yes. */
  confirm(message: string, onYes: () => void): void;
  /** A message to read in an overlay (an authorization URL). */
  showMessage(title: string, lines: Line[]): void;
  /** A footer message on the current page: it stays with that page, another page does not show it. */
  flash(text: string, level?: FlashLevel): void;
  /** Runs an action against the gateway: its outcome on the page it started on, then fresh data. */
  act<T>(work: () => Promise<T>, outcome: (value: T) => Outcome | void): void;
  /** Runs a page's request: the page is busy meanwhile and shows what `show` makes of the answer, or the error. */
  request<T>(page: Page, work: () => Promise<T>, show: (value: T) => { lines: Line[]; failed?: boolean }): void;
  /** Fetches the event history now (the stream brings only what comes after). */
  loadEvents(): void;
  /** Talks to another gateway from now on. */
  switchServer(choice: ServerChoice): void;
  /** The list of the Servers view. */
  setServers(servers: ServerChoice[], active?: ServerChoice): void;
}
