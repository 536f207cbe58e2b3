import { expect, it } from 'vitest';
import { describeChange } from './audit-change';

it('shows what changed, what was given and what was taken away, field by field', () => {
  expect(describeChange({ balance: '50.00' }, { balance: '62.50', note: 'Goodwill', amount: '12.50' })).toEqual([
    { field: 'balance', before: '50.00', after: '62.50' },
    { field: 'amount', after: '12.50' },
    { field: 'note', after: 'Goodwill' },
  ]);
  expect(describeChange({ granted: false }, { granted: true })).toEqual([{ field: 'granted', before: 'false', after: 'true' }]);
  expect(describeChange(null, { admin: false })).toEqual([{ field: 'admin', after: 'false' }]);
  expect(describeChange({ error: 'x', state: 'failed' }, { state: 'installing' })).toEqual([
    { field: 'state', before: 'failed', after: 'installing' },
    { field: 'error', before: 'x' },
  ]);
  expect(describeChange({ a: 1, same: { x: 1 } }, { a: 1, same: { x: 1 } })).toEqual([]);
  expect(describeChange(null, null)).toEqual([]);
  expect(describeChange([1, 2], 3)).toEqual([{ field: 'value', before: '[1,2]', after: '3' }]);
});
