import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { observeService } from './docker';

// The states a sweep can catch a node in, from tasks shaped as the engine reports them (Docker 20.10),
// including those a test on a real Swarm meets only by chance. test/docker/observe.test.ts has the real ones.

const service = (replicas = 1) =>
  ({ ID: 'svc1', Spec: { Labels: { 'nodeharbor.service_id': 'sid' }, Mode: { Replicated: { Replicas: replicas } } } }) as unknown as Docker.Service;
const hosts = new Map([['node1', 'host-a']]);
type T = Parameters<typeof observeService>[1][number];
const task = (id: string, createdAt: string, desired: string, state: string, more: NonNullable<T['Status']> = {}): T => ({
  ID: id,
  NodeID: 'node1',
  CreatedAt: `2026-11-24T06:33:${createdAt}Z`,
  DesiredState: desired,
  Status: { State: state, ContainerStatus: { ContainerID: `c-${id}`, ExitCode: 0 }, ...more },
});
const killed = task('a', '10', 'shutdown', 'failed', { Err: 'task: non-zero exit (137)', ContainerStatus: { ContainerID: 'c-a', ExitCode: 137 } });

describe('observeService', () => {
  it('is online when the newest task meant to run runs, with its id and host', () => {
    expect(observeService(service(), [killed, task('b', '20', 'running', 'running')], hosts)).toEqual({
      serviceId: 'sid',
      state: 'online',
      taskId: 'b',
      host: 'host-a',
      exitCode: 137,
      reason: null,
    });
  });

  it('is restarting while the next task waits in the restart delay (desired ready), with why the last run ended', () => {
    expect(observeService(service(), [killed, task('b', '20', 'ready', 'accepted', { ContainerStatus: {} })], hosts)).toEqual({
      serviceId: 'sid',
      state: 'restarting',
      taskId: null,
      host: null,
      exitCode: 137,
      reason: 'task: non-zero exit (137)',
    });
  });

  it('is restarting when the run just ended and Swarm has not made the next task yet', () => {
    const justEnded = { ...killed, DesiredState: 'running' };
    expect(observeService(service(), [justEnded], hosts)).toMatchObject({ state: 'restarting', taskId: 'a', exitCode: 137 });
  });

  it('has no exit code for a run refused before it had a container (no such image)', () => {
    const refused = task('a', '10', 'ready', 'rejected', { Err: 'No such image: x:1', ContainerStatus: { ContainerID: '', ExitCode: 0 } });
    expect(observeService(service(), [refused], hosts)).toEqual({
      serviceId: 'sid',
      state: 'restarting',
      taskId: null,
      host: null,
      exitCode: null,
      reason: 'No such image: x:1',
    });
  });

  it('is offline when no host can take the task, or there is no task', () => {
    const pending = task('b', '20', 'running', 'pending', { Err: 'no suitable node (insufficient resources on 1 node)', ContainerStatus: {} });
    expect(observeService(service(), [killed, { ...pending, NodeID: '' }], hosts)).toEqual({
      serviceId: 'sid',
      state: 'offline',
      taskId: 'b',
      host: null,
      exitCode: 137,
      reason: 'no suitable node (insufficient resources on 1 node)',
    });
    expect(observeService(service(), [], hosts)).toEqual({ serviceId: 'sid', state: 'offline', taskId: null, host: null, exitCode: null, reason: null });
  });

  it('is stopped at 0 replicas, and a run shut down on purpose leaves no exit code', () => {
    const shutDown = task('a', '10', 'shutdown', 'shutdown', { ContainerStatus: { ContainerID: 'c-a', ExitCode: 137 } });
    expect(observeService(service(0), [shutDown], hosts)).toEqual({
      serviceId: 'sid',
      state: 'stopped',
      taskId: null,
      host: null,
      exitCode: null,
      reason: null,
    });
  });
});
