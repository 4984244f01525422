const TIME_SPAN = /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/;

/**
 * Parses a .NET `TimeSpan` as host.json writes it (`hh:mm:ss`, `d.hh:mm:ss`, `hh:mm:ss.fff`) into milliseconds.
 * @throws TypeError naming the setting when the text is not a TimeSpan.
 */
export function parseTimeSpan(text: string, setting: string): number {
  const match = TIME_SPAN.exec(text.trim());
  if (!match) throw new TypeError(`${setting}: "${text}" is not a TimeSpan (expected hh:mm:ss)`);
  const [, days = '0', hours = '0', minutes = '0', seconds = '0', fraction = ''] = match;
  const ms = Math.round(Number(`0.${fraction || '0'}`) * 1000);
  return ((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60_000 + Number(seconds) * 1000 + ms;
}
