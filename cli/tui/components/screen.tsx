/** The whole screen for one state: header, banner, title, the page (or an overlay over it), footer. */
import { Box } from 'ink';
import type { TuiController, TuiState } from '../controller.js';
import { PAGES } from '../views/pages.js';
import { currentFlash, currentPage } from '../ui-state.js';
import { bannerText, pageRows } from '../layout.js';
import { Header } from './header.js';
import { Banner } from './banner.js';
import { TitleBar } from './title-bar.js';
import { TableView } from './table-view.js';
import { TextView } from './text-view.js';
import { Footer } from './footer.js';
import { HelpOverlay } from './help-overlay.js';
import { Dialog } from './dialog.js';

export function Screen({ state, tui }: { state: TuiState; tui: TuiController }) {
  const { ui, data } = state;
  const page = currentPage(ui);
  const spec = PAGES[page.kind];
  const ctx = tui.context(page);
  const width = ui.columns;
  const height = pageRows(ui, data);
  const banner = bannerText(data);
  // Help first: a narrow terminal cuts the end of the line.
  const hints: Array<[string, string]> = [['?', 'help'], ...tui.bindings(ctx).map((b): [string, string] => [b.keys[0], b.label])];

  let body;
  if (ui.overlay?.kind === 'help') body = <HelpOverlay sections={tui.helpSections()} width={width} height={height} />;
  else if (ui.overlay) body = <Dialog overlay={ui.overlay} width={width} height={height} />;
  else if (spec.table) body = <TableView key={page.id} content={spec.table(ctx)} filter={page.filter} cursor={page.cursor} width={width} height={height} />;
  else body = <TextView lines={spec.lines?.(ctx) ?? []} filter={page.filter} scroll={page.scroll} width={width} height={height} />;

  return (
    <Box flexDirection="column" width={width} height={ui.rows - 1}>
      <Header ui={ui} data={data} />
      {banner ? <Banner text={banner} width={width} /> : null}
      <TitleBar title={spec.title(ctx)} filter={page.filter} busy={page.busy ?? false} width={width} />
      {body}
      <Footer input={ui.input} flash={currentFlash(ui)} hints={hints} width={width} />
    </Box>
  );
}
