/** The kinds of Creator Studio record (core/studio/resources.ts describes each). */
export type StudioKind = 'project' | 'board' | 'column' | 'card' | 'sprint' | 'wiki_page' | 'snippet' | 'island_code' | 'milestone' | 'label';

/**
 * One Creator Studio record, whatever its kind: the table in `core/studio/resources.ts` says
 * which fields `data` holds; the port stores them without looking inside.
 */
export interface StudioRecord {
  id: string;
  kind: StudioKind;
  /** The account that owns the project (and so every record in it). */
  owner_id: string;
  /** The project the record belongs to; a project's own id for a project. */
  project_id: string;
  /** What it lives in: the owner account for a project, else the id of its parent record. */
  parent_id: string;
  /** Its index among its siblings (same parent and kind) for ordered kinds; null for the others. */
  position: number | null;
  /** The writable fields, as validated by the core (JSON values only). */
  data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  /** Starts at 1; every update and move adds one. */
  revision: number;
  /**
   * Values that no other record of the same project and kind may hold at the same time (the
   * resource's unique fields, such as `slug:"lore"`). The port enforces it, in the same step as the
   * write, so two concurrent writes of one slug cannot both succeed.
   */
  keys: string[];
}

export type StudioUpdateResult = { outcome: 'updated'; record: StudioRecord } | { outcome: 'missing' } | { outcome: 'stale' } | { outcome: 'taken'; key: string };

/** Most records of a kind one parent may hold, per kind: what `insert` and `move` enforce. */
export type StudioLimits = Partial<Record<StudioKind, number>>;

/** Thrown by `insert` and `move` when the parent already holds its limit of records of the kind. */
export class StudioParentFull extends Error {
  constructor(
    readonly kind: StudioKind,
    readonly limit: number,
  ) {
    super(`marketkit studio storage: a parent holds at most ${limit} ${kind} records`);
    this.name = 'StudioParentFull';
  }
}

/** Thrown by `insert` when a record's key is held by another record of its project and kind. */
export class StudioKeyTaken extends Error {
  constructor(readonly key: string) {
    super(`marketkit studio storage: the key ${key} is taken in this project`);
    this.name = 'StudioKeyTaken';
  }
}

/**
 * Creator Studio's storage, separate from the listing storage port so that an embedding app can
 * keep it elsewhere or leave it out. Every method is atomic against every other caller, in this
 * process or (for a shared database) another; `runStudioSuite` in `conformance/ports` checks it.
 *
 * Ordered kinds (position not null): the siblings under one parent always have the positions
 * 0..n-1, each once, after any interleaving of insert, move and remove.
 */
export interface StudioStoragePort {
  /**
   * Stores the records, all or none: if any cannot be stored (an id taken, inside the batch or
   * already stored, a key taken: `StudioKeyTaken`, a parent past its limit in `limits`:
   * `StudioParentFull`), the call throws and nothing of it is kept. An ordered record is put at index
   * min(position, number of siblings) among its siblings, shifting those at and after that index
   * one down; records are placed in the order given.
   */
  insert(records: StudioRecord[], limits?: StudioLimits): Promise<void>;
  /** The record, or null. */
  get(id: string): Promise<StudioRecord | null>;
  /**
   * The records of `kind` directly under `parentId`: ordered kinds by position, the others oldest
   * first (created_at, then id).
   */
  listChildren(parentId: string, kind: StudioKind): Promise<StudioRecord[]>;
  /** How many records of `kind` are directly under `parentId` (for the limits per parent). */
  countChildren(parentId: string, kind: StudioKind): Promise<number>;
  /** Every record of the project, the project itself included, in no particular order. */
  listProject(projectId: string): Promise<StudioRecord[]>;
  /**
   * Replaces `data`, `keys` and `updated_at` if the stored revision is `expectedRevision` (then
   * revision + 1) and no other record of the project and kind holds one of the keys ('taken'):
   * a compare-and-set, so that a decision made on a read cannot be overwritten by a change
   * that came in between ('stale': read again and decide again).
   */
  update(id: string, expectedRevision: number, changes: { data: Record<string, unknown>; keys: string[]; updated_at: string }): Promise<StudioUpdateResult>;
  /**
   * Moves an ordered record to index min(index, siblings there) under `parentId` (its current
   * parent or another of the same kind), closing the gap it leaves and shifting the new siblings,
   * in one step; revision + 1. Null when the record is gone. Moving into another parent that
   * already holds `limits[kind]` records throws `StudioParentFull` and changes nothing.
   */
  move(id: string, parentId: string, index: number, at: string, limits?: StudioLimits): Promise<StudioRecord | null>;
  /**
   * Removes the record and everything under it (children, their children, ...), closing the gap
   * among its ordered siblings, in one step. False when it was not there.
   */
  remove(id: string): Promise<boolean>;
  /** Answers when the store is reachable (for health checks); throws otherwise. */
  ping?(): Promise<void>;
}
