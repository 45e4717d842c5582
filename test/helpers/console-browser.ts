/**
 * Driving the web console in headless Chromium: a page that records every
 * request it makes and every Content-Security-Policy violation, the
 * accessibility check (axe-core, evaluated through the DevTools protocol, so
 * the page's own CSP does not stop it and the page is not changed), and
 * screenshots (into docs/console/ with UPDATE_SCREENSHOTS=1, else a temp
 * folder, so a test run leaves the work tree alone).
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { repoRoot } from '../fixtures/spawn.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface WatchedPage {
  page: Page;
  /** Every URL the page asked for that is not the gateway's (none is expected). */
  foreign: string[];
  /** Console messages about CSP violations (none is expected). */
  cspViolations: string[];
}

export function watch(page: Page, gatewayUrl: string): WatchedPage {
  const foreign: string[] = [];
  const cspViolations: string[] = [];
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(`${gatewayUrl}/`) && !url.startsWith('data:')) foreign.push(url);
  });
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to (load|execute|apply)/i.test(msg.text())) cspViolations.push(msg.text());
  });
  return { page, foreign, cspViolations };
}

interface AxeResult {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A and AA, and best practices). */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeResult[] }> } }).axe;
    const res = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => `${n.target.join(' ')} (${n.failureSummary ?? ''})`).join('; ')}`);
}

export async function expectAccessible(page: Page, what: string): Promise<void> {
  const problems = await accessibilityProblems(page);
  expect(problems.join('\n'), `axe-core on ${what}`).toBe('');
}

const shotsDir = process.env.UPDATE_SCREENSHOTS === '1' ? join(repoRoot(), 'docs', 'console') : mkdtempSync(join(tmpdir(), 'console-shots-'));

/** A PNG of the viewport, for docs/console.md. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(shotsDir, { recursive: true });
  const path = join(shotsDir, `${name}.png`);
  // Times tick and the live badge pulses: a still page for the picture.
  await page.mouse.move(0, 0);
  const png = await page.screenshot({ path, type: 'png', animations: 'disabled' });
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return path;
}
