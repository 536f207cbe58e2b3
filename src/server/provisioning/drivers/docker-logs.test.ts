import { describe, expect, it } from 'vitest';
import { logLines } from './docker-logs';

/** One frame of the Engine's multiplexed stream: 1 stdout, 2 stderr. */
const frame = (stream: 1 | 2, payload: string | Buffer) => {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const header = Buffer.alloc(8);
  header.writeUInt8(stream, 0);
  header.writeUInt32BE(data.length, 4);
  return Buffer.concat([header, data]);
};

describe('logLines', () => {
  it('reads one line per frame, from stdout and stderr, in order', () => {
    expect(logLines(Buffer.concat([frame(1, 'one\n'), frame(2, 'two\n'), frame(1, 'three\n')]))).toEqual(['one', 'two', 'three']);
  });

  it('reads nothing from nothing', () => {
    expect(logLines(Buffer.alloc(0))).toEqual([]);
  });

  it('splits a frame that holds several lines, and keeps empty lines', () => {
    expect(logLines(frame(1, 'a\nb\n\nc\n'))).toEqual(['a', 'b', '', 'c']);
  });

  it('joins a line written across frames, even with a frame of the other stream between them', () => {
    const body = Buffer.concat([frame(1, 'hel'), frame(2, 'err'), frame(1, 'lo\nwor'), frame(2, 'or\n'), frame(1, 'ld\n')]);
    expect(logLines(body)).toEqual(['hello', 'error', 'world']);
  });

  it('decodes a character whose UTF-8 bytes are split across frames', () => {
    const bytes = Buffer.from('clé\n', 'utf8');
    expect(logLines(Buffer.concat([frame(1, bytes.subarray(0, 3)), frame(1, bytes.subarray(3))]))).toEqual(['clé']);
  });

  it('keeps a last line without its newline, and strips nothing from a line', () => {
    expect(logLines(Buffer.concat([frame(1, '2026-11-24T06:33:20.149964375Z  spaced \r\n'), frame(2, 'no newline')]))).toEqual([
      '2026-11-24T06:33:20.149964375Z  spaced \r',
      'no newline',
    ]);
  });

  it('keeps what arrived of a frame cut short', () => {
    expect(logLines(frame(1, 'whole\npart\n').subarray(0, 8 + 8))).toEqual(['whole', 'pa']);
  });

  it('takes a stream that is not framed (a TTY) as plain text', () => {
    expect(logLines(Buffer.from('raw one\nraw two\n'))).toEqual(['raw one', 'raw two']);
    expect(logLines(Buffer.concat([frame(1, 'framed\n'), Buffer.from('raw\n')]))).toEqual(['framed', 'raw']);
  });
});
