/** Quality only, with the tuning split's misses listed: `node dist/bench/optimizer/quality-main.js [--misses]` (for working on the search). */
import { loadWordVectors } from '../../runtime/optimizer/word-vectors.js';
import { exposedTools, loadCatalogs, loadRequests, SPLITS } from './dataset.js';
import { qualityTable, type Quality } from './quality.js';

const catalogs = loadCatalogs();
const tools = exposedTools(catalogs);
const requests = loadRequests(catalogs);
const vectors = await loadWordVectors();
const { ladder, without, devMisses } = qualityTable(tools, requests, vectors);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const cells = (q: Quality) => `R@1 ${pct(q.recall_at_1)} R@5 ${pct(q.recall_at_5)} MRR ${q.mrr.toFixed(3)}`;
console.log(`${tools.length} tools, ${requests.length} requests (${SPLITS.map((s) => `${s} ${requests.filter((r) => r.split === s).length}`).join(', ')})`);
for (const row of [...ladder, ...without])
  console.log(`${row.variant.padEnd(60)} held out ${cells(row.held_out)} | dev ${cells(row.splits.dev)} | new held out ${cells(row.splits.heldout)}`);
if (process.argv.includes('--misses')) for (const m of devMisses) console.log(m);
