import { describe, expect, it } from 'vitest';
import { blockedReason, displayStatus, intervalLabel, maskKey } from './service-status';

describe('service display status (spec §4)', () => {
  it('puts deleting first, then installing, then active or expired', () => {
    expect(displayStatus({ is_deleting: true, is_installed: false, expired: true })).toBe('deleting');
    expect(displayStatus({ is_deleting: false, is_installed: false, expired: true })).toBe('installing');
    expect(displayStatus({ is_deleting: false, is_installed: true, expired: false })).toBe('active');
    expect(displayStatus({ is_deleting: false, is_installed: true, expired: true })).toBe('expired');
  });

  it('blocks Extend and Delete while installing or deleting, with the spec tooltips', () => {
    expect(blockedReason('installing', 'extend')).toBe('Cannot extend, service is currently installing...');
    expect(blockedReason('installing', 'delete')).toBe('Cannot delete, service is currently installing...');
    expect(blockedReason('deleting', 'extend')).toBe('Service is currently being deleted...');
    expect(blockedReason('deleting', 'delete')).toBe('Service is currently being deleted...');
    expect(blockedReason('active', 'delete')).toBeNull();
    expect(blockedReason('expired', 'extend')).toBeNull();
  });

  it('masks all but the last 4 characters, counting characters not code units', () => {
    expect(maskKey('abcdefgh=', 4)).toBe('•••••fgh=');
    expect(maskKey('ab', 4)).toBe('ab');
    expect(maskKey('x😀yz1', 4)).toBe('•😀yz1');
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
