import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as fontkit from 'fontkit';

/**
 * The fonts documents are drawn with (decision 049): DejaVu Sans, which covers Latin, Greek,
 * Cyrillic, Armenian and Georgian among others, and for what it lacks, Noto Sans SC (Chinese, and
 * the kana it carries), in the subsets @fontsource ships, each loaded the first time a document
 * needs one of its characters. Each file is read and parsed once per process, and pdfkit embeds only
 * the glyphs a document uses. The static WOFF files, not the WOFF2: those are the variable font, whose
 * default instance is Thin.
 */

const require = createRequire(import.meta.url);

export type Weight = 'regular' | 'bold';

const DEJAVU_DIR = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
const DEJAVU: Record<Weight, string> = { regular: 'DejaVuSans.ttf', bold: 'DejaVuSans-Bold.ttf' };
// The package exports only its stylesheets; its folder is beside its index.css.
const NOTO_DIR = dirname(require.resolve('@fontsource/noto-sans-sc'));
const NOTO_WEIGHT: Record<Weight, number> = { regular: 400, bold: 700 };

type Range = { from: number; to: number; subset: string };

/** unicode.json: subset → "U+4e00-4e3f,U+4e41,…"; "[12]" names the file noto-sans-sc-12-400-normal.woff. */
function notoRanges(): Range[] {
  const subsets = JSON.parse(readFileSync(join(NOTO_DIR, 'unicode.json'), 'utf8')) as Record<string, string>;
  const ranges: Range[] = [];
  for (const [key, list] of Object.entries(subsets)) {
    const subset = key.replace(/^\[(\d+)\]$/, '$1');
    for (const part of list.split(',')) {
      const [from, to] = part.trim().replace(/^U\+/i, '').split('-');
      ranges.push({ from: parseInt(from!, 16), to: parseInt(to ?? from!, 16), subset });
    }
  }
  return ranges;
}

let ranges: Range[] | undefined;
const parsed = new Map<string, fontkit.Font>();

function open(path: string): fontkit.Font {
  let font = parsed.get(path);
  if (!font) {
    font = fontkit.create(readFileSync(path)) as fontkit.Font;
    parsed.set(path, font);
  }
  return font;
}

/** A font to draw with: `name` is what the document registers it as. */
export type DocumentFont = { name: string; font: fontkit.Font };

const dejavu = (weight: Weight): DocumentFont => ({ name: `dejavu-${weight}`, font: open(join(DEJAVU_DIR, DEJAVU[weight])) });

/** The font that draws `codePoint` at `weight`: DejaVu when it can, else the Noto subset that holds it, else DejaVu's missing-glyph box. */
function fontFor(codePoint: number, weight: Weight): DocumentFont {
  const main = dejavu(weight);
  if (main.font.hasGlyphForCodePoint(codePoint)) return main;
  ranges ??= notoRanges();
  const range = ranges.find((r) => codePoint >= r.from && codePoint <= r.to);
  if (!range) return main;
  const path = join(NOTO_DIR, 'files', `noto-sans-sc-${range.subset}-${NOTO_WEIGHT[weight]}-normal.woff`);
  return { name: `noto-${range.subset}-${weight}`, font: open(path) };
}

/** `text` cut into runs that one font draws each, in order; spaces and marks stay with the run they are in. */
export function fontRuns(text: string, weight: Weight): { text: string; font: DocumentFont }[] {
  const runs: { text: string; font: DocumentFont }[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const last = runs[runs.length - 1];
    // A space or a combining mark goes on in the current font: no run break for it.
    if (last && (/\s/.test(ch) || /\p{M}/u.test(ch))) {
      last.text += ch;
      continue;
    }
    const font = fontFor(cp, weight);
    if (last?.font.name === font.name) last.text += ch;
    else runs.push({ text: ch, font });
  }
  return runs;
}
