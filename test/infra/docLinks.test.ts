import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..', '..');
const markdown = new MarkdownIt({ html: true });

/** The repository's Markdown files, as git tracks them (none of node_modules or build output). */
const markdownFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z', '--', '*.md'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);

/** The text GitHub makes a heading's anchor from: its inline content, without the Markdown around it. */
const headingText = (inline: Token): string =>
  (inline.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');

/** The anchors a file offers: its headings, slugged as GitHub does (repeats get `-1`, `-2`…), and HTML ids. */
function anchorsOf(tokens: readonly Token[]): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(headingText(tokens[i + 1]!)));
    if (token.type === 'html_block' || token.type === 'html_inline')
      for (const [, id] of token.content.matchAll(/\b(?:id|name)="([^"]+)"/g)) anchors.add(id!);
  });
  return anchors;
}

/** Every link target of a file: Markdown links, and images, anywhere in its inline content. */
function targetsOf(tokens: readonly Token[]): string[] {
  const targets: string[] = [];
  const visit = (list: readonly Token[]) => {
    for (const token of list) {
      const target = token.attrGet(token.type === 'image' ? 'src' : 'href');
      if ((token.type === 'link_open' || token.type === 'image') && target !== null) targets.push(String(target));
      if (token.children) visit(token.children);
    }
  };
  visit(tokens);
  return targets;
}

/** The links of the repository's Markdown that resolve to nothing, as `file: target`. */
function brokenLinks(): string[] {
  const parsed = new Map<string, Token[]>();
  const tokensOf = (file: string) => {
    if (!parsed.has(file)) parsed.set(file, markdown.parse(readFileSync(join(root, file), 'utf8'), {}));
    return parsed.get(file)!;
  };
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const target of targetsOf(tokensOf(file))) {
      // Absolute URLs and mail addresses are not the repository's to check.
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#', 2);
      const linked = path === '' ? file : relative(root, resolve(root, dirname(file), decodeURIComponent(path)));
      if (linked.startsWith('..') || !existsSync(join(root, linked))) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      const isMarkdown = linked.endsWith('.md') && statSync(join(root, linked)).isFile();
      // A line anchor (`#L10`) on source files is GitHub's; other files offer no anchors to check.
      if (!isMarkdown) continue;
      if (!anchorsOf(tokensOf(linked)).has(decodeURIComponent(anchor)))
        broken.push(`${file}: ${target} (no heading ${linked}#${anchor})`);
    }
  }
  return broken;
}

/** The repository's code, as git tracks it. */
const codeFiles = (): string[] =>
  execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mjs', '*.cjs', '*.js'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);

/**
 * A comment's pointer at a section of our documents: `docs/architecture.md, "The parts"` (or `: "…"`), its path
 * from the root or from the citing file, ending the line or followed by the section's title in quotes.
 */
const CITATION = /((?:[\w.-]+\/)*[\w.-]+\.md)(?:[,:] "([^"]+)")?/g;

/**
 * The sections a comment may name in a document, by slug: its headings, and the items a paragraph or list item
 * opens with in bold (`**Two copies of ….**`).
 */
function sectionsOf(tokens: readonly Token[]): Set<string> {
  const sections = new Set(anchorsOf(tokens));
  for (const token of tokens) {
    const children = (token.type === 'inline' ? (token.children ?? []) : []).filter(
      (child) => child.type !== 'text' || child.content !== '',
    );
    const close = children.findIndex((child) => child.type === 'strong_close');
    if (children[0]?.type !== 'strong_open' || close < 0) continue;
    const label = headingText({ ...token, children: children.slice(1, close) } as Token).replace(/[.:]$/, '');
    sections.add(new GithubSlugger().slug(label));
  }
  return sections;
}

/** The pointers of code comments at our documents that lead nowhere: a file that is not there, or a section title. */
function brokenCitations(): string[] {
  const broken: string[] = [];
  for (const file of codeFiles()) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      // Comments only, and not those citing another project's repository.
      if (!/^\s*(\/\/|\*|\/\*)/.test(line) || line.includes('github.com/')) return;
      for (const [, path, section] of line.matchAll(CITATION)) {
        // A bare name (`README.md`) says no more than "the README": only paths are checked.
        if (!path!.includes('/')) continue;
        const linked = [path!, relative(root, resolve(root, dirname(file), path!))].find((candidate) =>
          existsSync(join(root, candidate)),
        );
        if (linked === undefined) broken.push(`${file}:${i + 1}: ${path} (no such file)`);
        else if (
          section !== undefined &&
          !sectionsOf(markdown.parse(readFileSync(join(root, linked), 'utf8'), {})).has(
            new GithubSlugger().slug(section),
          )
        )
          broken.push(`${file}:${i + 1}: ${path}, "${section}" (no such section)`);
      }
    });
  }
  return broken;
}

describe("the repository's Markdown links", () => {
  it('all lead to a file of the repository, and an anchor to one of its headings', () => {
    expect(brokenLinks()).toEqual([]);
  });

  it("and the code's comments point at documents and sections that are there", () => {
    expect(brokenCitations()).toEqual([]);
  });

  it('slug headings as GitHub does', () => {
    const tokens = markdown.parse('# Who may import whom\n## `npm start`, the flags\n## Start-up\n## Start-up\n', {});
    expect([...anchorsOf(tokens)]).toEqual(['who-may-import-whom', 'npm-start-the-flags', 'start-up', 'start-up-1']);
    expect(targetsOf(markdown.parse('[a](b.md#c) and ![i](img.png)', {}))).toEqual(['b.md#c', 'img.png']);
  });
});
