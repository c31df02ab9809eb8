import type { JobName } from '@app/shared/queue/jobs';
import { assertOneHandlerPerJob, type JobHandler } from './job-handler';

const handler = (name: string) => ({ name, handle: () => Promise.resolve() }) as unknown as JobHandler;
const names: JobName[] = ['delete-video', 'sync-video'];

describe('assertOneHandlerPerJob', () => {
  it('accepts exactly one handler per job', () => {
    expect(() =>
      assertOneHandlerPerJob([handler('delete-video'), handler('sync-video')], names),
    ).not.toThrow();
  });

  it('names a job without a handler', () => {
    expect(() => assertOneHandlerPerJob([handler('delete-video')], names)).toThrow(/sync-video: 0 handlers/);
  });

  it('names a job with two handlers', () => {
    expect(() =>
      assertOneHandlerPerJob(
        [handler('delete-video'), handler('delete-video'), handler('sync-video')],
        names,
      ),
    ).toThrow(/delete-video: 2 handlers/);
  });

  it('names a handler for an unknown job', () => {
    expect(() =>
      assertOneHandlerPerJob([handler('delete-video'), handler('sync-video'), handler('nope')], names),
    ).toThrow(/nope: not a job name/);
  });
});
