import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normaliseBody } from 'ledger-convoy/core';
import { CliError } from '../errors.js';
import { bodyText } from './deadLetterRow.js';

/**
 * Opens a body in `$VISUAL`/`$EDITOR` (pretty JSON, or the raw text of a non-JSON body) and returns the saved
 * file parsed as JSON. The editor command may carry arguments (`code -w`), so it runs through the shell.
 */
export function editBody(body: unknown, label: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const editor = env.VISUAL || env.EDITOR;
  if (!editor)
    throw new CliError(
      'InvalidOption',
      '--edit needs an editor.',
      'Set $EDITOR (e.g. EDITOR=nano), or pass the corrected body with --body <file>.',
    );
  const dir = mkdtempSync(join(tmpdir(), 'convoy-'));
  const file = join(dir, `${label.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
  try {
    const parsed = normaliseBody(body);
    writeFileSync(file, parsed.ok ? `${JSON.stringify(parsed.value, null, 2)}\n` : bodyText(body), 'utf8');
    const result = spawnSync(`${editor} "${file}"`, { shell: true, stdio: 'inherit', env });
    if (result.status !== 0)
      throw new CliError(
        'InvalidOption',
        `The editor (${editor}) exited with ${result.status ?? result.signal}; nothing was resubmitted for ${label}.`,
      );
    return readJsonBody(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads a corrected body (`--body <file>`): it must be JSON. */
export function readJsonBody(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError('File', `Cannot read ${path}.`, undefined, { cause: error });
  }
  const parsed = normaliseBody(text);
  if (!parsed.ok)
    throw new CliError(
      'File',
      `${path} is not JSON.`,
      'A corrected entry is a JSON object such as the ledger entries in docs.',
    );
  return parsed.value;
}
