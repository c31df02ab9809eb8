/** A sweep's work: it takes no payload, and finds what to do in the stores. */
export interface SweepHandler {
  handle(): Promise<unknown>;
}
