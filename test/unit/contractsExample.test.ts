import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('docs/contracts.md', () => {
  it('quotes examples/orderReadModel.ts as it is: its handler, folding with the core, and its registration', async () => {
    // Prepare
    const [contracts, example] = await Promise.all([read('docs/contracts.md'), read('examples/orderReadModel.ts')]);
    // Act
    const quoted = example.slice(example.indexOf('/** Folds one event into the read model, once. */')).trimEnd();
    // Assess
    expect(quoted).toContain("app.serviceBusTopic('orderReadModel'");
    expect(quoted).toContain('foldOrderEvent(');
    expect(example).toContain("from 'ledger-convoy/core'");
    expect(contracts).toContain(`\`\`\`ts\n${quoted}\n\`\`\``);
  });
});
