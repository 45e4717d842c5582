/**
 * The optimizer: with it on, a client's tool list is `find_tool`, `call_tool`
 * and the tools `keep_tools` names, whatever the size of the catalog; the
 * catalog is searched with find_tool and called through call_tool, which
 * goes through the router like a direct call (filters, audit under the real
 * name, progress, cancellation). The search index follows the route table:
 * updated shortly after each change, and at the latest when it is searched
 * (a search waits for an update under way; a large build runs in chunks, so
 * the gateway keeps serving meanwhile).
 */
import { EventEmitter } from 'node:events';
import picomatch from 'picomatch';
import type { Tool } from '@modelcontextprotocol/client';
import { ToolNotFoundError } from '../../schemas/errors.js';
import type { RouteTable, ListKind } from '../routing/route-table.js';
import type { CallerContext, ForwardOptions, JsonObject } from '../routing/caller.js';
import { listResultJson } from '../transports/json-rpc.js';
import { ALL_SEARCH_STEPS, DEFAULT_TUNING, ToolIndex, type IndexedTool, type ToolMatch } from './tool-index.js';
import { loadWordVectors, type WordVectors } from './word-vectors.js';
import { CALL_TOOL, CALL_TOOL_DEFINITION, FIND_TOOL, callToolArguments, findToolArguments, findToolDefinition, findToolResult } from './meta-tools.js';
import type { OptimizerSettings } from './settings.js';

/** What a caller may see and call (the default: everything). */
export type ToolVisibility = (name: string) => boolean;

/** The route tables the optimizer searches (runtime/backends/serving-backends.ts). */
export interface CatalogSource {
  readonly routes: RouteTable;
}

/** What call_tool calls through (runtime/routing/router.ts). */
export interface ToolCaller {
  callTool(caller: CallerContext, params: JsonObject, opts?: ForwardOptions): Promise<JsonObject>;
}

export interface ToolOptimizerEvents {
  /** The tool list clients are shown changed without a new route table (the optimizer was turned on or off, keep_tools changed). */
  toolsListChanged: [];
}

/** How long after a catalog change the index is rebuilt (a burst of changes, one rebuild). */
const REBUILD_DELAY_MS = 100;
/** How many names an unknown name's error suggests. */
const SUGGESTIONS = 3;

export class ToolOptimizer extends EventEmitter<ToolOptimizerEvents> {
  /** Lexical until the word vectors are read, before the first build (so only once the optimizer is on or someone searches). */
  private index = new ToolIndex();
  private vectorsRead?: Promise<void>;
  private indexedTable?: RouteTable;
  /** The index update under way, if any. */
  private updating?: Promise<void>;
  private rebuildTimer?: NodeJS.Timeout;
  /** The tool list shown with the optimizer on, per route table (for the current settings). */
  private lists = new WeakMap<RouteTable, Tool[]>();
  private keep: (name: string) => boolean = () => false;
  private settings!: OptimizerSettings;
  /** The JSON of the tool list clients were last shown (to tell them only of real changes). */
  private shownJson: string;

  constructor(
    private readonly catalog: CatalogSource,
    private readonly router: ToolCaller,
    /** The group of a backend (desired state); the index covers it. */
    private readonly groupOf: (backend: string) => string | undefined,
    settings: OptimizerSettings,
    /** The word vectors (a 10 MB file read when first needed); none: lexical search only. */
    private readonly wordVectors: () => Promise<WordVectors | undefined> = () => loadWordVectors(),
  ) {
    super();
    this.apply(settings);
    this.shownJson = listResultJson('tools', this.toolsList());
  }

  /** A new route table (delivered by app/route-listeners.ts): the index follows it, debounced. */
  routesChanged(): void {
    this.scheduleRebuild();
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  /** A reload's settings; clients are told when the list they see changes. */
  configure(settings: OptimizerSettings): void {
    this.apply(settings);
    const shown = listResultJson('tools', this.toolsList());
    if (shown !== this.shownJson) {
      this.shownJson = shown;
      this.emit('toolsListChanged');
    }
    if (settings.enabled) this.scheduleRebuild();
  }

  /** The tool list a client is shown for this route table: the catalog, or with the optimizer on the meta-tools and the kept tools. */
  toolsList(table: RouteTable = this.catalog.routes, visible?: ToolVisibility): Tool[] {
    if (!this.settings.enabled) return visible ? table.lists.tools.filter((t) => visible(t.name)) : table.lists.tools;
    let list = this.lists.get(table);
    if (!list) {
      list = [findToolDefinition(this.settings.maxResults), CALL_TOOL_DEFINITION, ...table.lists.tools.filter((t) => this.keep(t.name))];
      this.lists.set(table, list);
    }
    return visible ? list.filter((t) => isMetaTool(t.name) || visible(t.name)) : list;
  }

  /**
   * The lists whose change clients must hear of, given a new route table (called
   * once per table): with the optimizer on, the tool list changes only when a
   * kept tool does.
   */
  visibleChanges(lists: ReadonlySet<ListKind>, table: RouteTable): ReadonlySet<ListKind> {
    const shown = this.shownJson;
    this.shownJson = listResultJson('tools', this.toolsList(table));
    if (!this.settings.enabled || !lists.has('tools') || shown !== this.shownJson) return lists;
    return new Set([...lists].filter((k) => k !== 'tools'));
  }

  /** Whether a direct tools/call of this name is one of the meta-tools (only with the optimizer on). */
  handles(name: unknown): boolean {
    return this.settings.enabled && isMetaTool(name);
  }

  /** Runs find_tool or call_tool for a client. */
  async call(caller: CallerContext, params: JsonObject, opts: ForwardOptions, visible?: ToolVisibility): Promise<JsonObject> {
    if (params.name === FIND_TOOL) {
      const { query, limit } = findToolArguments(params.arguments, this.settings.maxResults);
      return findToolResult(await this.search(query, limit, visible));
    }
    const target = callToolArguments(params.arguments);
    // The router checks the policies (a denied tool is refused as an unknown one, and audited as denied).
    const forwarded: JsonObject = { ...target, ...(params._meta !== undefined ? { _meta: params._meta } : {}) };
    try {
      return await this.router.callTool(caller, forwarded, opts);
    } catch (err) {
      if (err instanceof ToolNotFoundError && err.details.tool === target.name)
        throw new ToolNotFoundError(target.name, await this.suggest(target.name, visible));
      throw err;
    }
  }

  /** The search behind find_tool, `GET /tools/search` and `gateway-client tools search`, over the newest route table. */
  async search(query: string, limit: number = this.settings.maxResults, visible?: ToolVisibility): Promise<ToolMatch[]> {
    return (await this.freshIndex()).search(query, { limit, ...(visible ? { visible } : {}) });
  }

  close(): void {
    clearTimeout(this.rebuildTimer);
  }

  private async suggest(name: string, visible?: ToolVisibility): Promise<string[]> {
    return (await this.freshIndex()).closestNames(name, SUGGESTIONS, visible);
  }

  private apply(settings: OptimizerSettings): void {
    this.settings = settings;
    this.keep = settings.keepTools.length > 0 ? picomatch([...settings.keepTools]) : () => false;
    this.lists = new WeakMap();
  }

  /** Off, the index is brought up to date only when someone searches (operators may, through the API). */
  private scheduleRebuild(): void {
    if (!this.settings.enabled || this.rebuildTimer) return;
    this.rebuildTimer = setTimeout(() => {
      this.rebuildTimer = undefined;
      this.freshIndex().catch(() => undefined); // the next search tries again, and says why
    }, REBUILD_DELAY_MS);
    this.rebuildTimer.unref();
  }

  /** The index of the current route table: one update at a time, the next one (if the table moved on meanwhile) after it. */
  private async freshIndex(): Promise<ToolIndex> {
    for (;;) {
      if (this.updating) await this.updating;
      else if (this.indexedTable !== this.catalog.routes) {
        const table = this.catalog.routes;
        // A failed update keeps the old index and fails this search; the next one tries again.
        const update: Promise<void> = this.withVectors()
          .then(() => this.index.replaceInChunks(indexedTools(table, this.groupOf)))
          .then(() => {
            this.indexedTable = table;
          })
          .finally(() => {
            if (this.updating === update) this.updating = undefined;
          });
        this.updating = update;
      } else return this.index;
    }
  }

  /** Before the first build: the index with word vectors, if they can be read (if not, it stays lexical). */
  private withVectors(): Promise<void> {
    this.vectorsRead ??= this.wordVectors()
      .catch(() => undefined)
      .then((vectors) => {
        if (vectors) this.index = new ToolIndex(ALL_SEARCH_STEPS, DEFAULT_TUNING, vectors);
      });
    return this.vectorsRead;
  }
}

function isMetaTool(name: unknown): boolean {
  return name === FIND_TOOL || name === CALL_TOOL;
}

function indexedTools(table: RouteTable, groupOf: (backend: string) => string | undefined): IndexedTool[] {
  return [...table.tools.values()].map((e) => ({ name: e.tool.name, tool: e.tool, backend: e.backend, group: groupOf(e.backend) ?? '' }));
}
