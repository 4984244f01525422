import type { FunctionRegistration } from 'ledger-convoy/functions/register';

export type { FunctionRegistration };

/** A registration of one kind. */
export type RegistrationOf<K extends FunctionRegistration['kind']> = Extract<FunctionRegistration, { kind: K }>;

/** A Service Bus trigger: on a queue, or on a subscription of a topic (`app.serviceBusTopic`). */
export type ServiceBusRegistration = RegistrationOf<'serviceBusQueue' | 'serviceBusTopic'>;

/**
 * The in-process host implements triggers and the HTTP return value only. A definition that also uses input
 * or output bindings would silently lose data here, so it is refused up front with the function's name.
 * @throws TypeError naming the function and the unsupported binding.
 */
export function assertSupported(registration: FunctionRegistration): void {
  const { name, options } = registration;
  if (options.extraInputs?.length)
    throw new TypeError(`function ${name}: extraInputs are not supported by the local host`);
  if (options.extraOutputs?.length)
    throw new TypeError(`function ${name}: extraOutputs are not supported by the local host`);
  const output = options.return;
  if (output && !(registration.kind === 'http' && output.type === 'http')) {
    throw new TypeError(`function ${name}: a "${output.type}" return binding is not supported by the local host`);
  }
  if (
    (registration.kind === 'serviceBusQueue' || registration.kind === 'serviceBusTopic') &&
    registration.options.cardinality === 'many'
  ) {
    // With sessions the real host's batch dispatch holds one session at a time per instance and renews no session
    // lock (WebJobs Service Bus extension, ServiceBusListener): nothing a local figure should predict.
    const why = registration.options.isSessionsEnabled
      ? ' (with sessions the host runs one session at a time and renews no session lock)'
      : '';
    throw new TypeError(
      `function ${name}: cardinality "many" is not supported by the local host${why}; use cardinality "one"`,
    );
  }
}
