import { z } from 'zod';
import { erasureDryRunSchema } from './erasure.schema';

/** The 200 of an erasure asked for an author with no video to erase: nothing was written. */
export const erasureNothingSchema = z.object({
  videos: z.literal(0).meta({ description: 'the author has no video to erase; nothing was written' }),
});
export type ErasureNothing = z.output<typeof erasureNothingSchema>;

/** Every 200 of `eraseAuthorVideos`: a dry run's count, or an author with nothing to erase. */
export const erasureCountSchema = z.union([erasureDryRunSchema, erasureNothingSchema]);
