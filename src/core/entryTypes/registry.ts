/**
 * The entry types, listed once. The schemas, the `Entry` type, the changes an event carries and the event types all
 * derive from this list; the pipeline finds an entry's module here.
 */
import { z } from 'zod';
import type { EntrySchema } from '../schemas/entry.js';
import type { EntryTypeModule } from './entryType.js';
import { orderCreated } from './orderCreated.js';
import { orderDeleted } from './orderDeleted.js';
import { transactionAdded } from './transactionAdded.js';
import { transactionAmended } from './transactionAmended.js';

/** Every entry type, in the order an order's life usually sees them. */
const ENTRY_TYPES = [orderCreated, transactionAdded, transactionAmended, orderDeleted] as const;
type EntryTypes = typeof ENTRY_TYPES;
type SchemasOf<T extends readonly unknown[]> = {
  -readonly [K in keyof T]: T[K] extends { schema: infer S } ? S : never;
};

/** One ledger entry = the body of one order entry message. Strict: unknown properties fail. */
export const entrySchema = z.discriminatedUnion('type', ENTRY_TYPES.map((t) => t.schema) as SchemasOf<EntryTypes>);
/** A validated ledger entry. */
export type Entry = z.infer<typeof entrySchema>;
/** The type of an entry (`OrderCreated`, …). */
export type EntryType = Entry['type'];

type ChangeOf<M> = M extends EntryTypeModule<infer _S, infer C> ? C : never;
/**
 * What an applied entry did, as its event carries it (`data.change`), one shape per entry type: folding these in
 * sequence order rebuilds the order ({@link foldOrderEvent}).
 */
export type EntryChange = ChangeOf<EntryTypes[number]>;

/** An entry type as the pipeline asks it, whatever the entry. */
type EntryBehaviour = Omit<EntryTypeModule<EntrySchema, EntryChange>, 'schema'>;

const BY_TYPE = new Map<string, EntryBehaviour>(
  ENTRY_TYPES.map((t) => [t.schema.shape.type.value, t as EntryBehaviour]),
);

/** The module of an entry type; `undefined` for a type there is none of. */
export function entryTypeOf(type: string): EntryBehaviour | undefined {
  return BY_TYPE.get(type);
}

/** The entry type that opens an order (every other type comes after it). */
export const OPENING_TYPE = ENTRY_TYPES.find((t) => t.opensOrder)!.schema.shape.type.value;
