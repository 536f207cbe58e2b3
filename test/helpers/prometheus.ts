import { expect } from 'vitest';

// Prometheus' text format, version 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format): comments, and
// samples with optional labels; NaN and Inf in any case, as Go's ParseFloat reads them.
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
const VALUE = '(?:[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?[Ii][Nn][Ff]|[Nn][Aa][Nn])';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*),?\\})? (${VALUE})(?: -?\\d+)?$`);
const ONE_LABEL = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, 'g');
const HELP = new RegExp(`^# HELP (${NAME}) .*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Exposition = { samples: Sample[]; types: Map<string, string> };

/** The suffixes a histogram's or summary's samples add to its family's name. */
const SUFFIXES = { histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] } as Record<string, string[]>;

/**
 * A /metrics body, checked line by line against the text format: every line a comment or a sample,
 * every family's TYPE before its samples and given once, every sample of a declared family, no
 * sample given twice, and a final newline. A line that breaks a rule fails the test, with the line.
 */
export function parseMetrics(text: string): Exposition {
  expect(text.endsWith('\n'), 'the exposition ends with a newline').toBe(true);
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  const bad: string[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const type = TYPE.exec(line);
    if (type) {
      if (types.has(type[1]!)) bad.push(`${line} (a second TYPE)`);
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line === '' || HELP.test(line)) continue;
    const m = SAMPLE.exec(line);
    if (!m) {
      bad.push(line);
      continue;
    }
    const [, name, labelText = '', value] = m;
    const labels = Object.fromEntries([...labelText.matchAll(ONE_LABEL)].map(([, k, v]) => [k!, JSON.parse(v!) as string]));
    const family = [...types].find(([f, t]) => (SUFFIXES[t] ?? ['']).some((s) => `${f}${s}` === name));
    if (!family) bad.push(`${line} (no TYPE before it)`);
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) bad.push(`${line} (given twice)`);
    seen.add(key);
    samples.push({ name: name!, labels, value: Number(/nan/i.test(value!) ? NaN : value!.replace(/inf/i, 'Infinity')) });
  }
  expect(bad).toEqual([]);
  return { samples, types };
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The samples named `name`. */
export const samplesOf = (e: Exposition, name: string): Sample[] => e.samples.filter((s) => s.name === name);
