import { expect, it } from 'vitest';
import { linksIn } from './mail-outbox';

it('finds each web link in a text once, in order', () => {
  const text =
    'Open https://example.test/reset?token=a&x=1 within an hour.\nOr http://b.test/, then https://example.test/reset?token=a&x=1 again <https://c.test/p>';
  expect(linksIn(text)).toEqual(['https://example.test/reset?token=a&x=1', 'http://b.test/', 'https://c.test/p']);
  expect(linksIn('No links here, nor ftp://x.test')).toEqual([]);
});
