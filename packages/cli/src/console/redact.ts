import type { AppSettings } from 'ledger-convoy/adapters/azureSettings';

/** Setting names whose values are secrets, or carry one (a connection string holds its key). */
const SECRET_SETTING = /connection|key|secret|password|token|signature/i;
/** Parts of identity-based connection settings: where to connect and as whom, no secret. */
const PUBLIC_PART = /__(fullyQualifiedNamespace|accountEndpoint|credential|clientId)$/i;
/** Key parts of connection strings, wherever they turn up (an SDK error quoting one). */
const KEY_PARTS = /\b(SharedAccessKey|SharedAccessSignature|AccountKey)=[^;"'<>\s]*/gi;

/**
 * Takes every secret out of `text`: the values of secret settings (connection strings, keys, tokens), anywhere they
 * appear, and any `AccountKey=` / `SharedAccessKey=` part. The console runs it over every page it sends, so an
 * error that quotes a connection string cannot leak it.
 */
export function redactor(app: AppSettings, extra: readonly string[] = []): (text: string) => string {
  const secrets = [
    ...Object.entries(app)
      .filter(
        ([name, value]) =>
          SECRET_SETTING.test(name) && !PUBLIC_PART.test(name) && typeof value === 'string' && value.trim().length >= 8,
      )
      .map(([, value]) => value!.trim()),
    ...extra.filter((s) => s.length >= 8),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join('(secret)');
    return out.replace(KEY_PARTS, '$1=(secret)');
  };
}
