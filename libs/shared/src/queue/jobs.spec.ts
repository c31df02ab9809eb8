import { JOB_NAMES, JOBS } from './jobs';

describe('JOBS', () => {
  it('keeps each job on the queue Redis already holds its jobs on', () => {
    expect(Object.fromEntries(JOB_NAMES.map((name) => [name, JOBS[name].queue]))).toEqual({
      'delete-video': 'video-deletion',
      'sync-video': 'video-index',
      reindex: 'maintenance',
      'deliver-webhook': 'webhooks',
      'erase-author': 'erasures',
      'trash-operation': 'trash-operations',
    });
  });
});
