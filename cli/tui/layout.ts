/**
 * The screen's rows, top to bottom: header, the red banner while the server
 * does not answer (or refuses), the page title, the page, the footer. One row
 * stays free at the bottom: Ink redraws a frame that fills the terminal by
 * clearing the whole screen, which flickers.
 */
import type { GatewaySnapshot } from './data/live-gateway.js';
import type { UiState } from './ui-state.js';

/** The banner's text, or undefined when there is none. */
export function bannerText(data: GatewaySnapshot): string | undefined {
  if (!data.connecting && !data.reachable) return `Gateway unreachable (${reasonOf(data.error)}), retrying…`;
  if (data.reachable && data.apiError) return `Gateway refused: ${data.apiError}`;
  return undefined;
}

/** Rows of the page area. */
export function pageRows(ui: UiState, data: GatewaySnapshot): number {
  return Math.max(3, ui.rows - 4 - (bannerText(data) ? 1 : 0));
}

/** `ECONNREFUSED` from "Cannot reach the gateway at <url> (ECONNREFUSED)" (the URL is in the header already). */
function reasonOf(error: string | undefined): string {
  if (!error) return 'no answer';
  return /\(([^()]+)\)$/.exec(error)?.[1] ?? error;
}
