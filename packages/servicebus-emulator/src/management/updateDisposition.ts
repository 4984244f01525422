import type { Settlement } from '../broker/consumer.js';
import { brokerErrors } from '../errors/brokerError.js';
import { toTokens } from './codec.js';
import { entityOf } from './types.js';
import { typedEntries } from '../broker/wireMessage.js';
import type { ManagementOperation } from './types.js';

/**
 * `com.microsoft:update-disposition`: settles by lock token (deferred messages, or when the receiving link is
 * gone). Status names are the service's, including the `defered` spelling.
 */
export const updateDisposition: ManagementOperation = (req) => {
  const entity = entityOf(req);
  const props = typedEntries(req.typedField('properties-to-modify'));
  const status = req.body['disposition-status'];
  let settlement: Settlement;
  switch (status) {
    case 'completed':
      settlement = { kind: 'complete' };
      break;
    case 'abandoned':
      settlement = { kind: 'abandon', props };
      break;
    case 'defered':
      settlement = { kind: 'defer', props };
      break;
    case 'suspended':
      settlement = {
        kind: 'deadLetter',
        reason: req.body['deadletter-reason'] as string | undefined,
        description: req.body['deadletter-description'] as string | undefined,
        props,
      };
      break;
    default:
      throw brokerErrors.badRequest(`Unknown disposition-status ${String(status)}`);
  }
  for (const token of toTokens(req.body['lock-tokens'])) entity.settle(token, settlement);
  return { status: 200, body: {} };
};
