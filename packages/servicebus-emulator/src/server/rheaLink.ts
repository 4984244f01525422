import type { Receiver, Sender } from 'rhea';

/** The attach fields the broker reads or sets. */
interface AttachFields {
  name?: string;
  source?: { address?: string; filter?: Record<string, unknown> } | null;
  target?: { address?: string } | null;
  snd_settle_mode?: number;
  rcv_settle_mode?: number;
  max_message_size?: number;
  properties?: Record<string, unknown>;
}

/**
 * The parts of a rhea link its typings leave out. Kept in one place: the held attach below is the only spot
 * where the broker steers rhea's endpoint state directly.
 */
export interface LinkInternals {
  remote: { attach?: AttachFields };
  local: { attach: AttachFields };
  state: { local_open: boolean; open_requests: number };
  credit: number;
  sendable(): boolean;
}

/** Typed view of a link's internals. */
export function internals(link: Sender | Receiver): LinkInternals {
  return link as unknown as LinkInternals;
}

/**
 * rhea opens the local end of an incoming attach just before raising `sender_open`; undoing that keeps the
 * broker's attach unsent so it can answer later (a held "next session" request).
 */
export function holdAttach(link: Sender | Receiver): void {
  const st = internals(link).state;
  if (st.local_open && st.open_requests > 0) {
    st.local_open = false;
    st.open_requests--;
  }
}
