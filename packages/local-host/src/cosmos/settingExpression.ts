import type { AppSettings } from '../config/appSettings.js';

/**
 * Resolves the `%NAME%` app-setting expressions in a binding property as the Functions host does (the whole value
 * or parts of it, each `%NAME%` replaced by the setting). A setting that is not there fails the function's start,
 * as on the host, naming both.
 * @throws Error naming the function, the property and the missing setting.
 */
export function resolveSettingExpression(
  value: string,
  settings: AppSettings,
  where: { functionName: string; property: string },
): string {
  return value.replace(/%([^%]+)%/g, (_, name: string) => {
    const resolved = settings[name];
    if (resolved === undefined || resolved === '') {
      throw new Error(
        `function ${where.functionName}: ${where.property} "${value}" names the app setting ${name}, which is not set`,
      );
    }
    return resolved;
  });
}
