import type { SerializedMessage, StoreRecord } from './messageStore.js';

/** The state a log describes: surviving messages per entity, session states, dedup entries. */
export interface FoldedLog {
  messages: Map<string, Map<number, SerializedMessage>>;
  states: Map<string, Map<string, string | null>>;
  dups: { e: string; id: string; at: number }[];
}

/** Replays records in order into the final state. */
export function foldLog(records: Iterable<StoreRecord>): FoldedLog {
  const messages = new Map<string, Map<number, SerializedMessage>>();
  const states = new Map<string, Map<string, string | null>>();
  const dups: FoldedLog['dups'] = [];
  const of = (e: string): Map<number, SerializedMessage> => {
    let m = messages.get(e);
    if (!m) messages.set(e, (m = new Map()));
    return m;
  };
  for (const r of records) {
    switch (r.t) {
      case 'put':
        of(r.e).set(r.m.s, { ...r.m });
        break;
      case 'del':
        of(r.e).delete(r.s);
        break;
      case 'upd': {
        const m = of(r.e).get(r.s);
        if (!m) break;
        if (r.dc !== undefined) m.dc = r.dc;
        if (r.df !== undefined) m.df = r.df;
        if (r.pl !== undefined) m.pl = r.pl;
        if (r.ap !== undefined) m.ap = r.ap;
        if (r.et !== undefined) m.et = r.et;
        if (r.ex !== undefined) m.ex = r.ex;
        break;
      }
      case 'state': {
        let s = states.get(r.e);
        if (!s) states.set(r.e, (s = new Map()));
        s.set(r.id, r.v);
        break;
      }
      case 'dup':
        dups.push({ e: r.e, id: r.id, at: r.at });
        break;
      case 'undup': {
        const i = dups.findIndex((d) => d.e === r.e && d.id === r.id && d.at === r.at);
        if (i >= 0) dups.splice(i, 1);
        break;
      }
    }
  }
  return { messages, states, dups };
}

/** The folded state written back as the shortest equivalent log (used to compact at start). */
export function toRecords(f: FoldedLog): StoreRecord[] {
  const out: StoreRecord[] = [];
  for (const d of f.dups) out.push({ t: 'dup', ...d });
  for (const [e, byseq] of f.messages) for (const m of byseq.values()) out.push({ t: 'put', e, m });
  for (const [e, s] of f.states) for (const [id, v] of s) if (v !== null) out.push({ t: 'state', e, id, v });
  return out;
}
