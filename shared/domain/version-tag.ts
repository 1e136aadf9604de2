/**
 * The version of a versioned resource (a brand, a contact field, a webhook endpoint) that a write is
 * conditioned on, as its item records it: its `version` (every write bumps it) and, for a brand, whether
 * it is the default. The HTTP layer reads it from If-Match (shared/http/preconditions.ts).
 */
export interface VersionTag {
  version: number;
  /** Brands only. */
  isDefault?: boolean;
}
