import { ProblemException } from '@app/shared/http/problem';

/** What the shared services answer for a caller's request on one thing: it, or why not. */
export type Outcome<T extends { kind: 'ok' }> = T | { kind: 'not_found' } | { kind: 'forbidden' };

/** The ok outcome, or the 404 / 403 problem the contract gives for the others (docs/contract.md §4). */
export function settled<T extends { kind: 'ok' }>(
  outcome: Outcome<T>,
  messages: { notFound: string; forbidden: string },
): T {
  if (outcome.kind === 'not_found') throw new ProblemException(404, messages.notFound);
  if (outcome.kind === 'forbidden') throw new ProblemException(403, messages.forbidden);
  return outcome;
}

export const VIDEO_FORBIDDEN = "Only the video's author or an admin may do this.";
export const AUTHOR_FORBIDDEN = 'Only the author themself or an admin may do this.';
