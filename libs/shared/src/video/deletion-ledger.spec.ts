import fc from 'fast-check';
import { fakeVideo } from '@test/fakes/fake-videos';
import { ledgerEntry, parseLedgerEntry } from './deletion-ledger.service';
import { VideoState } from './video-state';
import type { FinishedDeletion } from './video.repository';

const moment = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2100-01-01T00:00:00Z'),
  noInvalidDate: true,
});

/** A finished deletion of any author, requester and content, as a purge hands it to the ledger. */
const finishedDeletion = fc
  .record({
    authorId: fc.string({ minLength: 1, maxLength: 128, unit: 'binary' }),
    requestedBy: fc.option(fc.string({ minLength: 1, maxLength: 128, unit: 'binary' }), { nil: null }),
    reason: fc.constantFrom('permanent' as const, 'retention' as const, null),
    deletedAt: fc.option(moment, { nil: null }),
    purgeAt: fc.option(moment, { nil: null }),
    objectsDeleted: fc.nat(1_000),
    purgedAt: moment,
    id: fc.uuid(),
  })
  .map((d): FinishedDeletion => ({
    video: fakeVideo(d.id, {
      authorId: d.authorId,
      deletionRequestedBy: d.requestedBy,
      deletionReason: d.reason,
      deletedAt: d.deletedAt,
      purgeAt: d.purgeAt,
      state: VideoState.Deleting,
    }),
    objectsDeleted: d.objectsDeleted,
    purgedAt: d.purgedAt,
  }));

describe('a deletion ledger entry', () => {
  it('holds the video id and the deletion facts only, never the author or the requester, whoever they are', () => {
    fc.assert(
      fc.property(finishedDeletion, ({ video, objectsDeleted, purgedAt }) => {
        const stored = JSON.parse(
          JSON.stringify(ledgerEntry({ video, objectsDeleted, purgedAt })),
        ) as unknown;
        expect(stored).toStrictEqual({
          videoId: video.id,
          reason: video.deletionReason,
          deletedAt: video.deletedAt?.toISOString() ?? null,
          purgeAt: video.purgeAt?.toISOString() ?? null,
          objectsDeleted,
          purgedAt: purgedAt.toISOString(),
        });
      }),
    );
  });

  it('reads an entry written before as the impersonal one it becomes, and one written now as itself', () => {
    fc.assert(
      fc.property(finishedDeletion, (finished) => {
        const entry = ledgerEntry(finished);
        expect(parseLedgerEntry(JSON.stringify(finished))).toEqual({ entry, personal: true });
        expect(parseLedgerEntry(JSON.stringify(entry))).toEqual({ entry, personal: false });
      }),
    );
  });

  it('keeps what a rebuilt audit record needs of the deletion', () => {
    const purgedAt = new Date('2026-11-28T08:00:00.000Z');
    const deletedAt = new Date('2026-11-01T00:00:00.000Z');
    const entry = ledgerEntry({
      video: fakeVideo('v1', {
        authorId: 'someone',
        deletionRequestedBy: 'someone',
        deletionReason: 'retention',
        deletedAt,
        purgeAt: purgedAt,
        state: VideoState.Deleting,
      }),
      objectsDeleted: 3,
      purgedAt,
    });
    expect(entry).toEqual({
      videoId: 'v1',
      reason: 'retention',
      deletedAt: deletedAt.toISOString(),
      purgeAt: purgedAt.toISOString(),
      objectsDeleted: 3,
      purgedAt: purgedAt.toISOString(),
    });
  });
});
