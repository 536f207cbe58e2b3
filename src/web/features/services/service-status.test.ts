import { describe, expect, it } from 'vitest';
import { blockedReason, displayStatus, installRefund, intervalLabel, isChanging, maskKey, renewalShortfall } from './service-status';

describe('service display status (spec §4)', () => {
  it('puts deleting first, then installing, then active or expired', () => {
    expect(displayStatus({ is_deleting: true, is_installed: false, expired: true })).toBe('deleting');
    expect(displayStatus({ is_deleting: false, is_installed: false, expired: true })).toBe('installing');
    expect(displayStatus({ is_deleting: false, is_installed: true, expired: false })).toBe('active');
    expect(displayStatus({ is_deleting: false, is_installed: true, expired: true })).toBe('expired');
  });

  it('takes the state when the server sends one, whatever the booleans say', () => {
    // The view's booleans for each state (migration 0014): a failed service is not installed.
    const flags = { is_deleting: false, is_installed: false, expired: false };
    expect(displayStatus({ ...flags, state: 'failed' })).toBe('failed');
    expect(displayStatus({ ...flags, state: 'installing' })).toBe('installing');
    expect(displayStatus({ ...flags, is_installed: true, state: 'active' })).toBe('active');
    expect(displayStatus({ ...flags, is_installed: true, expired: true, state: 'expired' })).toBe('expired');
    expect(displayStatus({ ...flags, is_installed: true, is_deleting: true, state: 'deleting' })).toBe('deleting');
  });

  it('shows a suspended service as expired, a deleted one as deleting, and an unknown state by its booleans', () => {
    const flags = { is_deleting: false, is_installed: true, expired: true };
    expect(displayStatus({ ...flags, state: 'suspended' })).toBe('suspended');
    expect(displayStatus({ ...flags, state: 'deleted' })).toBe('deleting');
    // A state this build does not know yet, or none at all: the spec's booleans decide.
    expect(displayStatus({ ...flags, state: 'hibernating' as never })).toBe('expired');
    expect(displayStatus({ ...flags, state: 'toString' as never })).toBe('expired');
    expect(displayStatus({ ...flags, state: null })).toBe('expired');
  });

  it('polls while installing or deleting, not once an installation has failed', () => {
    expect(isChanging('installing')).toBe(true);
    expect(isChanging('deleting')).toBe(true);
    expect(isChanging('failed')).toBe(false);
    expect(isChanging('active')).toBe(false);
    expect(isChanging('expired')).toBe(false);
  });

  it('offers no Extend on a failed installation, but Delete', () => {
    expect(blockedReason('failed', 'extend')).toBe('Cannot extend, installation failed');
    expect(blockedReason('failed', 'delete')).toBeNull();
  });

  it('blocks Extend and Delete while installing or deleting, with the spec tooltips', () => {
    expect(blockedReason('installing', 'extend')).toBe('Cannot extend, service is currently installing...');
    expect(blockedReason('installing', 'delete')).toBe('Cannot delete, service is currently installing...');
    expect(blockedReason('deleting', 'extend')).toBe('Service is currently being deleted...');
    expect(blockedReason('deleting', 'delete')).toBe('Service is currently being deleted...');
    expect(blockedReason('active', 'delete')).toBeNull();
    expect(blockedReason('expired', 'extend')).toBeNull();
  });

  it('masks all but the last 4 characters with 8 dots whatever the length, counting characters not code units', () => {
    expect(maskKey('abcdefgh=', 4)).toEqual({ dots: '••••••••', tail: 'fgh=' });
    expect(maskKey(`${'A'.repeat(43)}=`, 4)).toEqual({ dots: '••••••••', tail: 'AAA=' });
    expect(maskKey('x😀yz1', 4)).toEqual({ dots: '••••••••', tail: '😀yz1' });
    // No longer than the tail: nothing of it is shown.
    expect(maskKey('abcd', 4)).toEqual({ dots: '••••••••', tail: '' });
  });
});

describe('renewal interval in words', () => {
  it('names one unit alone and several in the plural', () => {
    expect(intervalLabel('1 MONTH')).toBe('month');
    expect(intervalLabel('3 MONTH')).toBe('3 months');
    expect(intervalLabel('6 MONTHS')).toBe('6 months');
    expect(intervalLabel('1 YEAR')).toBe('year');
  });
});

describe('money on the card (issue 36, item 5)', () => {
  it('reads what came back for a failed installation, as the API sends it', () => {
    expect(installRefund({ install_refund: '10.00' })).toBe(10);
    expect(installRefund({ install_refund: 3 })).toBe(3);
    expect(installRefund({ install_refund: null })).toBeNull();
    expect(installRefund({})).toBeNull();
  });

  it('asks a suspended service for what its renewal lacks, after those the resumption renews first', () => {
    const at = (day: number) => `2026-12-${String(day).padStart(2, '0')}T00:00:00+00:00`;
    const services = [
      { id: 'b', state: 'suspended' as const, terminates_at: at(10), price: 10 },
      { id: 'a', state: 'suspended' as const, terminates_at: at(20), price: 3 },
      { id: 'c', state: 'active' as const, terminates_at: null, price: 10 },
      { id: 'd', state: 'suspended' as const, terminates_at: at(10), price: 10 },
    ];
    expect(renewalShortfall('b', services, 4.5)).toBe(5.5);
    // d ends on the same day as b, after it by id: both are renewed before a.
    expect(renewalShortfall('d', services, 4.5)).toBe(15.5);
    expect(renewalShortfall('a', services, 4.5)).toBe(18.5);
    expect(renewalShortfall('b', services, 10)).toBeNull();
    expect(renewalShortfall('b', services, -2)).toBe(12);
    expect(renewalShortfall('c', services, 0)).toBeNull();
    expect(renewalShortfall('x', services, 0)).toBeNull();
  });
});
