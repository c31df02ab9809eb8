/** Lifecycle of a video row (docs/contract.md §2). A purged video has no row: only its audit record remains. */
export enum VideoState {
  Active = 'active',
  SoftDeleted = 'soft_deleted',
  Deleting = 'deleting',
}
