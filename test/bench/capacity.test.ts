import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DOCUMENTED_INPUTS,
  capacity,
  capacityTable,
  deployments,
  monthlyCost,
  type CapacityInputs,
  type Deployment,
} from '../../bench/support/capacity.js';
import { templateDefaults } from '../../bench/support/templateDefaults.js';

const DOC = new URL('../../docs/capacity.md', import.meta.url);
const BEGIN = '<!-- capacity table: bench/support/capacity.ts, DOCUMENTED_INPUTS -->';
const END = '<!-- end of capacity table -->';

/** A Markdown table's cells, row by row, without the separator row (Prettier may pad the cells). */
function cells(lines: readonly string[]): string[][] {
  return lines
    .filter((l) => l.trim().startsWith('|') && !/^\|[\s|:-]+\|$/.test(l.trim()))
    .map((l) =>
      l
        .trim()
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

const inputs: CapacityInputs = {
  requestUnitsPerEntry: 20,
  serviceBusMessagesPerEntry: 2,
  executionsPerEntry: 1,
  appCpuMsPerEntry: 2,
  entriesPerSecondPerSlot: 10,
  oneOrderEntriesPerSecond: 12,
};
const standardServerless: Deployment = {
  name: 'd',
  cosmos: { mode: 'Serverless' },
  serviceBus: { sku: 'Standard' },
  maximumInstanceCount: 40,
  maxConcurrentSessions: 8,
};

describe('the capacity model', () => {
  it("names the limit that binds first: Standard's 1,000 credits a second before serverless Cosmos DB's 5,000 RU/s", () => {
    // Act
    const c = capacity(inputs, standardServerless);
    // Assess: 1,000 credits ÷ (2 messages × 2 credits) = 250; 5,000 RU ÷ 20 = 250 too, so both are 250 here.
    expect(c.limits.map((l) => Math.round(l.entriesPerSecond))).toEqual([250, 250, 3200, 20000]);
    expect(c.binding.entriesPerSecond).toBe(250);
    expect(c.perOrder).toBe(12);
  });

  it('lifts the Service Bus and Cosmos DB limits with Premium messaging units and provisioned throughput', () => {
    const bigger: Deployment = {
      ...standardServerless,
      cosmos: { mode: 'Provisioned', autoscaleMaxRuPerSecond: 100_000 },
      serviceBus: { sku: 'Premium', messagingUnits: 4 },
    };
    const c = capacity(inputs, bigger);
    expect(c.binding.name).toMatch(/session slots/);
    expect(c.binding.entriesPerSecond).toBe(40 * 8 * 10);
  });

  it('prices only the rates a deployment sustains', () => {
    expect(monthlyCost(inputs, standardServerless, 10)).toBeGreaterThan(0);
    expect(monthlyCost(inputs, standardServerless, 1_000)).toBeUndefined();
    // Twice the entries cost more, but not twice the base charge.
    const ten = monthlyCost(inputs, standardServerless, 10) as number;
    const twenty = monthlyCost(inputs, standardServerless, 20) as number;
    expect(twenty).toBeGreaterThan(ten);
    expect(twenty).toBeLessThan(2 * ten);
  });
});

describe('docs/capacity.md', () => {
  it("shows the table the model computes from the inputs it names and the template's defaults", () => {
    // Prepare
    const doc = readFileSync(DOC, 'utf8');
    const begin = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(begin);
    // Act
    const expected = capacityTable(DOCUMENTED_INPUTS, deployments(templateDefaults()));
    // Assess
    expect(cells(doc.slice(begin + BEGIN.length, end).split('\n'))).toEqual(cells(expected));
  });
});
