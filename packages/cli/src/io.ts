/** Where commands write: stdout for results, stderr for notes; tests pass their own. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** The exit code the command asks for (verify: 1 on a mismatch). */
  exitCode: number;
  /**
   * Where the embedded stack is assumed when nothing is configured: tests point it at an address nothing listens on,
   * so they never meet an `npm start` running on this machine's default ports. @default `EMBEDDED_STACK_SETTINGS`
   * @internal
   */
  embeddedStack?: Readonly<Record<'ServiceBusConnection' | 'CosmosConnection', string>>;
}

/** The process's own streams. */
export function processIo(): CliIo {
  // `convoy dlq list | head` closes stdout early: that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    exitCode: 0,
  };
}
