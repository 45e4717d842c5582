/**
 * Trust on first use for the definitions of tools and prompts
 * (docs/tool-pinning.md). The first catalog of a backend pins every
 * definition its filters let through; from then on, each time the route
 * table is built (a catalog changed, never per call) every definition is
 * compared with its pin. One that differs, appeared later under
 * `new_tools: quarantine`, or holds suspicious text waits for an operator:
 * served and reported under `warn`, held back under `enforce`. Approving
 * pins what the backend serves now.
 *
 * Pins and what waits are kept in a PinStore, so a restart changes nothing.
 * A store shared by replicas tells what the others saved: those backends
 * are read again and holds decided again (an approval on one replica
 * serves the tool on all). A shared store out of reach at start is read
 * once it is reached; until then nothing is offered to review (the gateway
 * connects no backend before, app/gateway.ts), and whatever is offered is
 * held back, never pinned afresh over what the other replicas pinned.
 */
import { EventEmitter } from 'node:events';
import type { Prompt, Tool } from '@modelcontextprotocol/client';
import type { ToolPinningMode, ToolPinningSettings } from '../../schemas/config.js';
import type { BackendPins, DefinitionKind, Finding, HoldReason, Pending, Pin, PinEntry } from '../../schemas/pinning.js';
import type { DefinitionReview, Hold, Offered } from '../routing/route-table.js';
import { definitionHash, definitionOf, type Definition } from './definition.js';
import { findSuspicious } from './suspicious-text.js';
import type { PinStore } from './pin-store.js';
import { NotPendingError, PendingDefinitionChangedError } from '../../schemas/errors.js';

/** A definition began to wait for approval, or what waits changed (told once per change). */
export interface HeldDefinition {
  backend: string;
  kind: DefinitionKind;
  /** The backend's own name for it. */
  name: string;
  /** The name clients know it by. */
  exposed: string;
  reason: HoldReason;
  quarantined: boolean;
  mode: ToolPinningMode;
  /** The pinned hash, when there is a pin. */
  pinnedHash?: string;
  hash: string;
  findings: Finding[];
}

export interface ApprovedDefinition {
  backend: string;
  kind: DefinitionKind;
  name: string;
  exposed: string;
  /** Why it had waited. */
  reason: HoldReason;
  previousHash?: string;
  hash: string;
}

export interface DefinitionPinsEvents {
  held: [HeldDefinition];
  approved: [ApprovedDefinition];
  /** Holds changed without a catalog change (an approval, new settings): the route table must be built again. */
  changed: [];
  /** Pins could not be saved; they are tried again with the next change. */
  saveFailed: [Error];
  /** A store out of reach at start could not be read once reached (it is tried again when it says it is back). */
  readFailed: [Error];
}

/** What one definition waits for, as the management API shows it. */
export interface PendingDefinition {
  pin?: Pin;
  pending: Pending;
  findings: Finding[];
}

type Entries = Map<string, PinEntry>;
interface BackendRecord {
  tools: Entries;
  prompts: Entries;
}

interface Facts {
  definition: Definition;
  hash: string;
  findings: Finding[];
}

/**
 * A backend's first catalog is what it lists until its list has been quiet
 * this long: many servers register tools just after they connect and say
 * so with list_changed, and those are part of what is first seen.
 */
export const FIRST_CATALOG_QUIET_MS = 1000;

const NO_HOLDS = { tools: new Map<string, Hold>(), prompts: new Map<string, Hold>() };

export class DefinitionPins extends EventEmitter<DefinitionPinsEvents> implements DefinitionReview {
  private readonly backends = new Map<string, BackendRecord>();
  /** What was last told per definition (`held`), so a steady state is told once; seeded from the store, so a restart tells nothing new. */
  private readonly told = new Map<string, string>();
  /** Hash and findings per catalog item: a catalog that did not change is not hashed again. */
  private readonly facts = new WeakMap<object, Facts>();
  private readonly dirty = new Set<string>();
  /** Entries written so far (tells a review whether it changed anything). */
  private writes = 0;
  /** Backends first seen by this process whose first catalog is still settling: on which session, and when it last grew (epoch ms). */
  private readonly settling = new Map<string, { session: object | undefined; grewAt: number }>();
  private saving: Promise<void> = Promise.resolve();
  /** The store is shared by running replicas (it has `watch`). */
  private readonly shared: boolean;
  /** Whether the store has been read: only then are definitions reviewed. */
  private stored = false;
  private reading?: Promise<void>;
  /** Resolves once listening to a shared store (reads come after, so nothing saved in between goes unheard). */
  private listening: Promise<unknown> = Promise.resolve();
  private readonly read: { done: Promise<void>; resolve: () => void };

  private constructor(
    private readonly store: PinStore,
    private settings: ToolPinningSettings,
    private readonly now: () => Date,
  ) {
    super();
    this.shared = store.watch !== undefined;
    let resolve = () => {};
    this.read = { done: new Promise<void>((r) => (resolve = r)), resolve };
  }

  /**
   * Reads the store; throws when what it holds is not pins (the gateway does
   * not start on pins it cannot trust). A shared store out of reach is read
   * once it is reached (`whenRead`).
   */
  static async open(store: PinStore, settings: ToolPinningSettings, now: () => Date = () => new Date()): Promise<DefinitionPins> {
    const pins = new DefinitionPins(store, settings, now);
    // Listening first, then reading: nothing another replica saves in between goes unheard.
    pins.listening = store.watch?.((backends) => pins.heard(backends)) ?? Promise.resolve();
    if ((await store.reachable?.()) === false) return pins;
    await pins.readStore();
    return pins;
  }

  /** Whether the store has been read (a shared store out of reach at start: not until it is reached). */
  get isRead(): boolean {
    return this.stored;
  }

  /** Resolves once the store has been read. */
  whenRead(): Promise<void> {
    return this.read.done;
  }

  /** What the store holds becomes this replica's record. */
  private take(stored: Record<string, BackendPins>): void {
    for (const [backend, pins] of Object.entries(stored)) {
      const record = { tools: new Map(Object.entries(pins.tools)), prompts: new Map(Object.entries(pins.prompts)) };
      this.backends.set(backend, record);
      for (const kind of ['tool', 'prompt'] as const)
        for (const [name, entry] of entriesOf(record, kind))
          if (entry.pending)
            this.told.set(key(backend, kind, name), announcement(entry.pending.reason, entry.pending.hash, this.quarantines(entry.pending.reason)));
    }
    this.stored = true;
    this.read.resolve();
  }

  /** The shared store told of a change, or that it is reachable (again): read it (the first time, or again). */
  private heard(backends?: string[]): void {
    if (this.stored) void this.reread(backends);
    else
      this.readStore().then(
        () => this.emit('changed'),
        (err: unknown) => this.emit('readFailed', err as Error),
      );
  }

  /** The first read, once listening; one at a time (the start and the store's "reachable" share it). A failure is tried again when asked again. */
  private readStore(): Promise<void> {
    this.reading ??= (async () => {
      await this.listening;
      this.take(await this.store.load());
    })().catch((err: unknown) => {
      this.reading = undefined;
      throw err;
    });
    return this.reading;
  }

  get location(): string {
    return this.store.location;
  }

  get mode(): ToolPinningMode {
    return this.settings.mode;
  }

  /** New settings (a reload): holds are decided again. */
  setSettings(settings: ToolPinningSettings): void {
    if (settings.mode === this.settings.mode && settings.new_tools === this.settings.new_tools) return;
    this.settings = settings;
    this.emit('changed');
  }

  review(
    backend: string,
    offered: { tools: Array<Offered<Tool>>; prompts: Array<Offered<Prompt>> },
    session?: object,
  ): { tools: ReadonlyMap<string, Hold>; prompts: ReadonlyMap<string, Hold> } {
    if (this.settings.mode === 'off') return NO_HOLDS;
    // Not read yet: nothing is pinned afresh (that would overwrite what the other replicas pinned), and nothing is served unchecked.
    if (!this.stored) return holdAll(offered);
    const firstSight = this.firstSight(backend, session);
    const before = this.writes;
    const holds = {
      tools: this.reviewAll(backend, 'tool', offered.tools, firstSight),
      prompts: this.reviewAll(backend, 'prompt', offered.prompts, firstSight),
    };
    // What the first catalog gained keeps it settling a while longer.
    if (firstSight && this.writes > before) this.settling.set(backend, { session, grewAt: this.now().getTime() });
    if (this.dirty.size > 0) void this.flush().catch(() => undefined);
    return holds;
  }

  /** What waits for approval, with its pin and findings; undefined when nothing does. */
  pending(backend: string, kind: DefinitionKind, name: string): PendingDefinition | undefined {
    const entry = this.entry(backend, kind, name);
    if (!entry?.pending) return undefined;
    return { ...(entry.pin ? { pin: entry.pin } : {}), pending: entry.pending, findings: findSuspicious(entry.pending.definition) };
  }

  /**
   * Pins the definition that waits and serves it again. With `expectedHash`,
   * only if that is still the one waiting (the operator approves what they read).
   * Resolves once the pin is saved.
   */
  async approve(backend: string, kind: DefinitionKind, name: string, exposed: string, expectedHash?: string): Promise<Pin> {
    const entry = this.entry(backend, kind, name);
    const pending = entry?.pending;
    if (!pending) throw new NotPendingError(kind, exposed);
    if (expectedHash !== undefined && expectedHash !== pending.hash) throw new PendingDefinitionChangedError(kind, exposed, expectedHash, pending.hash);
    const pin: Pin = { hash: pending.hash, definition: pending.definition, pinned_at: this.now().toISOString(), approved: true };
    this.put(backend, kind, name, { pin });
    this.told.delete(key(backend, kind, name));
    await this.flush();
    this.emit('approved', { backend, kind, name, exposed, reason: pending.reason, previousHash: entry.pin?.hash, hash: pin.hash });
    this.emit('changed');
    return pin;
  }

  /**
   * What another replica saved replaces this one's record of those backends
   * (all of them when unsaid); holds are then decided again. A failed read is
   * dropped: the store reports when it is reachable again, and then every
   * backend is read. A store that lost backends (Redis restarted empty) gets
   * back this replica's records of them.
   */
  private async reread(backends?: string[]): Promise<void> {
    let stored: Record<string, BackendPins>;
    try {
      stored = await this.store.load();
    } catch {
      return;
    }
    for (const backend of backends ?? Object.keys(stored)) {
      const pins = stored[backend];
      if (pins) this.backends.set(backend, { tools: new Map(Object.entries(pins.tools)), prompts: new Map(Object.entries(pins.prompts)) });
    }
    if (backends === undefined) for (const backend of this.backends.keys()) if (!(backend in stored)) this.dirty.add(backend);
    if (this.dirty.size > 0) void this.flush().catch(() => undefined);
    this.emit('changed');
  }

  /** Resolves once every change so far is saved (shutdown waits for it). */
  async flushed(): Promise<void> {
    await this.flush().catch(() => undefined);
  }

  /**
   * Whether what the backend offers now is part of its first catalog (all of
   * it is pinned as it is): the first review ever of the backend, and what
   * the same session lists after it until the list has been quiet a while.
   */
  private firstSight(backend: string, session: object | undefined): boolean {
    if (!this.backends.has(backend)) {
      this.backends.set(backend, { tools: new Map(), prompts: new Map() });
      this.dirty.add(backend);
      this.settling.set(backend, { session, grewAt: this.now().getTime() });
      return true;
    }
    const settling = this.settling.get(backend);
    if (settling === undefined) return false;
    if (settling.session === session && this.now().getTime() - settling.grewAt < FIRST_CATALOG_QUIET_MS) return true;
    this.settling.delete(backend);
    return false;
  }

  private reviewAll<T extends Tool | Prompt>(backend: string, kind: DefinitionKind, offered: Array<Offered<T>>, firstSight: boolean): Map<string, Hold> {
    const holds = new Map<string, Hold>();
    for (const o of offered) {
      const hold = this.reviewOne(backend, kind, o, firstSight);
      if (hold) holds.set(o.original, hold);
    }
    return holds;
  }

  private reviewOne(backend: string, kind: DefinitionKind, o: Offered<Tool | Prompt>, firstSight: boolean): Hold | undefined {
    const facts = this.factsOf(kind, o.item);
    const entry = this.entry(backend, kind, o.original) ?? {};
    let pin = entry.pin;
    let reason: HoldReason | undefined;
    if (firstSight ? pin?.hash !== facts.hash : !pin && this.settings.new_tools === 'allow') {
      pin = { hash: facts.hash, definition: facts.definition, pinned_at: this.now().toISOString(), approved: false };
    } else if (!pin) reason = 'new';
    else if (pin.hash !== facts.hash) reason = 'changed';
    // Whatever the pin says, unless an operator approved exactly this definition.
    if (facts.findings.length > 0 && !(pin?.hash === facts.hash && pin.approved)) reason = 'suspicious';
    const k = key(backend, kind, o.original);
    // Replicas may be offered different definitions (a rolling update): with a shared store, what another one
    // recorded as waiting stays until approved, or they would overwrite each other's record without end.
    const othersPending = this.shared && entry.pending !== undefined && entry.pending.hash !== facts.hash;

    if (reason === undefined) {
      if (pin !== entry.pin || (entry.pending && !othersPending))
        this.put(backend, kind, o.original, othersPending ? { pin, pending: entry.pending } : { pin });
      this.told.delete(k);
      return undefined;
    }
    const keep = entry.pending && ((entry.pending.hash === facts.hash && entry.pending.reason === reason) || othersPending);
    const pending: Pending = keep ? entry.pending! : { reason, hash: facts.hash, definition: facts.definition, since: this.now().toISOString() };
    if (!keep || pin !== entry.pin) this.put(backend, kind, o.original, { ...(pin ? { pin } : {}), pending });
    // A new definition waits whatever the mode when new_tools says so.
    const quarantined = this.quarantines(reason) || (entry.pin === undefined && !firstSight && this.settings.new_tools === 'quarantine');
    const told = announcement(reason, facts.hash, quarantined);
    if (this.told.get(k) !== told) {
      this.told.set(k, told);
      this.emit('held', {
        backend,
        kind,
        name: o.original,
        exposed: o.exposed,
        reason,
        quarantined,
        mode: this.settings.mode,
        ...(pin && pin.hash !== facts.hash ? { pinnedHash: pin.hash } : {}),
        hash: facts.hash,
        findings: facts.findings,
      });
    }
    return { reason, quarantined };
  }

  private quarantines(reason: HoldReason): boolean {
    return this.settings.mode === 'enforce' || reason === 'new';
  }

  private factsOf(kind: DefinitionKind, item: Tool | Prompt): Facts {
    let facts = this.facts.get(item);
    if (!facts) {
      const definition = definitionOf(kind, item);
      facts = { definition, hash: definitionHash(definition), findings: findSuspicious(definition) };
      this.facts.set(item, facts);
    }
    return facts;
  }

  private entry(backend: string, kind: DefinitionKind, name: string): PinEntry | undefined {
    const record = this.backends.get(backend);
    return record && entriesOf(record, kind).get(name);
  }

  private put(backend: string, kind: DefinitionKind, name: string, entry: PinEntry): void {
    let record = this.backends.get(backend);
    if (!record) this.backends.set(backend, (record = { tools: new Map(), prompts: new Map() }));
    entriesOf(record, kind).set(name, entry);
    this.dirty.add(backend);
    this.writes++;
  }

  /** Saves the backends changed since the last save, after any save still running. */
  private flush(): Promise<void> {
    const run = this.saving.then(async () => {
      const names = [...this.dirty];
      this.dirty.clear();
      if (names.length === 0) return;
      const records = Object.fromEntries(names.map((name) => [name, plain(this.backends.get(name)!)]));
      try {
        await this.store.save(records);
      } catch (err) {
        for (const name of names) this.dirty.add(name);
        this.emit('saveFailed', err as Error);
        throw err;
      }
    });
    this.saving = run.catch(() => undefined);
    return run;
  }
}

/** Everything offered, held back as new (the store is not read yet). */
function holdAll(offered: { tools: Array<Offered<Tool>>; prompts: Array<Offered<Prompt>> }): { tools: Map<string, Hold>; prompts: Map<string, Hold> } {
  const held = (items: Array<Offered<Tool | Prompt>>) => new Map(items.map((o) => [o.original, { reason: 'new' as const, quarantined: true }]));
  return { tools: held(offered.tools), prompts: held(offered.prompts) };
}

const key = (backend: string, kind: DefinitionKind, name: string) => `${backend}\0${kind}\0${name}`;
const announcement = (reason: HoldReason, hash: string, quarantined: boolean) => `${reason}\0${hash}\0${quarantined}`;
const entriesOf = (record: BackendRecord, kind: DefinitionKind): Entries => (kind === 'tool' ? record.tools : record.prompts);
const plain = (record: BackendRecord): BackendPins => ({ tools: Object.fromEntries(record.tools), prompts: Object.fromEntries(record.prompts) });
