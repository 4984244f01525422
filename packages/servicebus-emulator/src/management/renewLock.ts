import { toTokens, typedArray } from './codec.js';
import { entityOf } from './types.js';
import type { ManagementOperation } from './types.js';

/** `com.microsoft:renew-lock`: extends message locks; answers the new expirations. */
export const renewLock: ManagementOperation = (req) => {
  const entity = entityOf(req);
  const expirations = toTokens(req.body['lock-tokens']).map((t) => entity.renewLock(t));
  return { status: 200, body: { expirations: typedArray.timestamps(expirations) } };
};
