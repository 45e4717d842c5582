/** Quality only, with the misses listed: `node dist/bench/optimizer/quality-main.js` (for working on the search). */
import { exposedTools, loadCatalogs, loadRequests } from './dataset.js';
import { qualityTable } from './quality.js';

const catalogs = loadCatalogs();
const tools = exposedTools(catalogs);
const requests = loadRequests(catalogs);
const { ladder, without, misses } = qualityTable(tools, requests);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`${tools.length} tools, ${requests.length} requests`);
for (const row of [...ladder, ...without])
  console.log(
    `${row.variant.padEnd(45)} dev R@1 ${pct(row.dev.recall_at_1)} R@5 ${pct(row.dev.recall_at_5)} MRR ${row.dev.mrr.toFixed(3)} | test R@1 ${pct(row.test.recall_at_1)} R@5 ${pct(row.test.recall_at_5)} MRR ${row.test.mrr.toFixed(3)} | fresh R@1 ${pct(row.fresh.recall_at_1)} R@5 ${pct(row.fresh.recall_at_5)} MRR ${row.fresh.mrr.toFixed(3)}`,
  );
if (process.argv.includes('--misses')) for (const m of misses) console.log(m);
