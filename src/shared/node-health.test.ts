import { describe, expect, it } from 'vitest';
import { durationText, nodeEventText } from './node-health';

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
