import { describe, expect, it } from 'vitest';
import { durationText, nodeEventText, thresholdDayText, thresholdProgressText, thresholdText, thresholdVerdict } from './node-health';

describe('nodeEventText', () => {
  it('says each node event in words', () => {
    expect(nodeEventText('node_online', { from: null })).toBe('Node online');
    expect(nodeEventText('node_online', { from: 'unknown' })).toBe('Node online');
    expect(nodeEventText('node_online', { from: 'stopped' })).toBe('Node online');
    expect(nodeEventText('node_online', { from: 'restarting' })).toBe('Node back online');
    expect(nodeEventText('node_online', { from: 'offline' })).toBe('Node back online');
    expect(nodeEventText('node_offline', { reason: 'no suitable node (insufficient resources on 1 node)' })).toBe(
      'Node offline: no suitable node (insufficient resources on 1 node)',
    );
    expect(nodeEventText('node_offline', null)).toBe('Node offline');
    expect(nodeEventText('node_restarting', { exit_code: 1 })).toBe('Node restarting (exit code 1)');
    expect(nodeEventText('node_restarting', {})).toBe('Node restarting');
    expect(nodeEventText('node_restarted', { exit_code: 137 })).toBe('Node restarted (exit code 137)');
    expect(nodeEventText('node_restarted', { exit_code: null })).toBe('Node restarted');
    expect(nodeEventText('node_stopped', { from: 'online' })).toBe('Node stopped');
  });

  it("has nothing to say of events that are not the monitor's", () => {
    expect(nodeEventText('installed', null)).toBeUndefined();
  });
});

describe('durationText', () => {
  it('reads hours and minutes', () => {
    expect(durationText(0)).toBe('0m');
    expect(durationText(59)).toBe('0m');
    expect(durationText(22_320)).toBe('6h 12m');
    expect(durationText(86_400)).toBe('24h 0m');
  });
});

describe('a daily threshold in words', () => {
  it('states the threshold in whole hours when it is, else in hours and minutes', () => {
    expect(thresholdText(8 * 3600)).toBe('8h');
    expect(thresholdText(7 * 3600 + 30 * 60)).toBe('7h 30m');
    expect(thresholdText(0)).toBe('0m');
  });

  it("gives today's progress without a verdict, and a day that is over with one", () => {
    expect(thresholdProgressText(3 * 3600 + 10 * 60, 8 * 3600)).toBe('3h 10m of 8h today');
    expect(thresholdProgressText(9 * 3600, 8 * 3600)).toBe('9h 0m of 8h today');
    expect(thresholdDayText(9 * 3600, 8 * 3600, true)).toBe('9h 0m of 8h, met');
    expect(thresholdDayText(3600, 8 * 3600, false)).toBe('1h 0m of 8h, missed');
    expect(thresholdVerdict(true)).toBe('met');
    expect(thresholdVerdict(false)).toBe('missed');
  });
});
