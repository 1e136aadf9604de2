/**
 * Every limit the API enforces and every time budget it keeps, in one place (README, "Limits and errors").
 * The spec sets the string lengths; the rest keeps each request inside what API Gateway, Lambda, DynamoDB
 * and S3 accept, so a caller meets a documented 4xx before any of them refuses.
 */
/** Digits of the largest id (a team's, a brand's…) the API makes room for: what an id route reads. */
const ID_DIGITS = 15;

export const LIMITS = {
  /** API Gateway's payload limit; the local gateway enforces it too (413). */
  gatewayPayloadBytes: 10 * 1024 * 1024,
  /** A JSON request body (413). */
  bodyBytes: 1024 * 1024,
  /** Arrays and objects inside one another in a body (400), checked before anything walks the body. */
  bodyDepth: 64,
  /** Request line and headers together, as the local gateway's HTTP parser reads them (431). */
  headerBytes: 16 * 1024,
  /** An S3 object key, UTF-8 encoded, prefix included (S3's own limit). */
  objectKeyBytes: 1024,
  idDigits: ID_DIGITS,
  /** Longest prefix put before a library path: `teams/<team id>/` with the largest id. */
  libraryPrefixBytes: 'teams/'.length + ID_DIGITS + 1,
  /**
   * A folder or file name in a library path, UTF-8 encoded: what file systems (ext4, APFS) and the tools
   * that sync a library to one can hold. S3 would take longer ones; the library does not, so a file it
   * holds can always be downloaded as it is named, and no store refuses a name the API accepted.
   */
  libraryNameBytes: 255,
  /** A brand image's file name in the public library (URL-safe ASCII; see shared/files/brand-images.ts). */
  publicFileNameLength: 64,
  /**
   * A brand image's bytes, by slot (422 over it, before anything is made public): each slot's display
   * size (logo ~200x50, square logo ~100x100, header ~600x200, footer ~600x100, social share ~1200x630)
   * at twice its resolution, as a PNG, with room to spare. A file named for two slots meets both limits.
   */
  brandImageBytes: {
    logo_image: 256 * 1024,
    logo_square_image: 256 * 1024,
    header_image: 1024 * 1024,
    footer_image: 1024 * 1024,
    social_share_image: 2 * 1024 * 1024,
  },
  /**
   * Days a public brand image stays after the last brand of its team stops naming it (mails already sent
   * still show it): the public bucket's lifecycle rule deletes it then, unless a brand names it again.
   */
  orphanedImageDays: 30,
  /**
   * The spec's strings: a brand's name, description, URLs and each tag, a contact field's name and tag, a
   * site's and a page's name, domain and URL (the admin CLI writes those).
   */
  textLength: 255,
  /** A file or image path in the team's library, in characters: no longer than its bytes may be (library.ts). */
  libraryPathLength: 1024 - ('teams/'.length + ID_DIGITS + 1),
  /** The site URL auto-configure reads. */
  autoConfigureUrlLength: 2048,
  /**
   * The side, in pixels, below which an icon is too small to be a brand's square logo: the slot shows it at about
   * 100x100 (brandImageBytes), so a smaller icon (the 57x57 touch icon of old iPhones, a 32x32 favicon) would show
   * scaled up and blurred. Auto-configure ranks any larger or unknown-size candidate first and suggests one below
   * it only when nothing else is declared, then with low confidence.
   */
  autoConfigureSquareLogoMinSide: 100,
  /** The most of a page (and of its web manifest) auto-configure reads, after content decoding (422 over it). */
  autoConfigurePageBytes: 5 * 1024 * 1024,
  /**
   * What parsing a page may cost (shared/autoconfigure/page-complexity.ts; 422 "too complex" over any): its
   * elements (each costs the parser a few µs), the depth the parser nests them to, the children it moves to close
   * elements left open at the end, and `<!--` with no `-->` after it (each a scan to the end of the page).
   */
  autoConfigurePageElements: 30_000,
  autoConfigurePageDepth: 512,
  autoConfigureUnclosedMoves: 1_000_000,
  autoConfigureUnterminatedComments: 16,
  /**
   * A title or an alt text is read to this many characters, after its whitespace runs are collapsed: a name is at
   * most 255 (textLength), and no pattern then runs over more of someone else's text.
   */
  autoConfigureTextLength: 2048,
  /**
   * Someone else's text (an attribute, a title, a link's text, a JSON string) is cut to this many characters before
   * any work over the whole of it (a whitespace collapse, a trim, a pattern, a split, a case or Unicode fold, entity
   * decoding, a URL parse): 64 times autoConfigureTextLength, so a text collapsed after the cut still fills that
   * length unless nearly all of it is whitespace (a title of `a`, 100,000 spaces and `b` is still read whole).
   */
  autoConfigureRawTextLength: 64 * 2048,
  /**
   * JSON-LD and the web manifest (shared/autoconfigure/json-values.ts), scanned once before JSON.parse: arrays and
   * objects nested deeper than this (real pages: under 10), or more values than this (each array, object, and
   * element or member after a comma; real pages: a few hundred), and the JSON is ignored as an unparsable one is.
   * The values bound counts a page's JSON-LD blocks together, in page order, and the manifest on its own:
   * JSON.parse's cost follows the values it builds (5 MiB of `[]` or of object keys costs about half a second),
   * not the depth alone.
   */
  autoConfigureJsonDepth: 64,
  autoConfigureJsonValues: 100_000,
  /**
   * The texts read for the site's name from each source, in page order: a meta key's contents (og:site_name,
   * application-name, apple-mobile-web-app-title), the alt texts of the header's logo images (real pages: one or
   * two, ten at most in the tests). Each is split into parts and every part weighed (a few µs each), so thousands of
   * texts of many parts would cost seconds; the ones after are not read for the name.
   */
  autoConfigureNameTextsPerSource: 16,
  /**
   * Auto-configure calls one team may have fetching at once (429 over it), of the pool every team shares
   * (cdk.json's `concurrency.autoConfigure`, 10 by default): a team's slow pages hold its own slots, and
   * the rest of the pool stays for the other teams.
   */
  autoConfigurePerTeam: 2,
  /** A webhook endpoint's URL. */
  webhookUrlLength: 2048,
  /** Brand lists (the spec bounds only each item's length). */
  brandTags: 100,
  brandSocialLinks: 50,
  /** A pick list: options, each option's characters, and all options' UTF-8 bytes together. */
  contactFieldOptions: 1000,
  contactFieldOptionLength: 255,
  contactFieldOptionsBytes: 256 * 1024,
  /** An `Idempotency-Key` header's characters (400 over it). */
  idempotencyKeyLength: 255,
  /** `limit` of the paged lists (brands, contact fields, pages): 1 to this. */
  listPageSize: 200,
  /**
   * An endpoint's deliveries one `GET /webhook-endpoints/{id}/deliveries` reads at most: a filter that
   * matches few answers a shorter page, even an empty one, with a Link to read on.
   */
  deliveriesReadPerRequest: 2000,
  /**
   * Site ids in one `GET /pages` filter (`site_id`, `site_id[]` together): a team's default sites quota,
   * so a filter can name every site of such a team; a team with more lists them all without the filter.
   */
  pageSiteIds: 100,
  /**
   * A list `cursor`: what the API issues is at most about 2,200 characters (the payload with a name of 255
   * characters, each JSON-escaped to 6, in base64url, and its tag); anything longer is a 400 unread.
   */
  cursorLength: 4096,
  /** DynamoDB's item limit; the per-field limits above keep every item below it (tested). */
  itemBytes: 400 * 1024,
  /**
   * Misspelled keys (shared/domain/misspelled-keys.ts): a longer key is never taken for a misspelling (the
   * longest field has 23 characters), and one 422 names at most so many, so that its answer stays small
   * (a create keeps it under its Idempotency-Key, in a DynamoDB item).
   */
  misspelledKeyLength: 64,
  misspelledKeysNamed: 20,
  /**
   * One file of a team's library, in bytes: `POST /files` takes the file's `size` up to this (422 over it)
   * and signs it into the upload URL as its Content-Length, so S3 accepts exactly that many bytes.
   */
  uploadFileBytes: 25 * 1024 * 1024,
  /**
   * A change event as stored (its DynamoDB item size, attribute names and UTF-8 text: shared/data/item-size.ts).
   * The largest brand change the limits allow fits (249,551 bytes, computed from these limits in
   * test/tenant-isolation/storage.services.test.ts);
   * an event over it is stored without the largest former values, naming them (`data.omitted`), so the log
   * never holds an item DynamoDB would refuse (a contact field's options may hold 256 KiB before and after).
   */
  eventBytes: 300 * 1024,
  /**
   * An Idempotency-Key record (its DynamoDB item size): the largest answer a create gives fits (a brand at
   * every limit, its text control characters escaped in JSON: 186,011 bytes), checked where the record is
   * built (shared/data/idempotency.ts).
   */
  idempotencyRecordBytes: 256 * 1024,
  /**
   * Live API tokens a team may hold (expired and replaced ones do not count): the rate limits count each
   * token on its own, so a team's rate is at most this many times its plan's limit, and that product is
   * the team's documented rate (docs/tenant-isolation.md, "Rate limits"). A plan change's reissued tokens may overlap the
   * ones they replace for the overlap (24 h by default).
   */
  liveTokensPerTeam: 10,
} as const;

/**
 * Time budgets. Every AWS SDK call gives up after `attempts` tries, each bounded by the connection and
 * request timeouts, with the SDK's jittered back-off between them (at most 3 s in all, when throttled): a
 * call ends within SDK_CALL_BUDGET_MS, inside the function timeout, so a dead dependency answers 503.
 */
export const TIMEOUTS = {
  connectMs: 500,
  /** Socket inactivity once the request is sent (DynamoDB answers in milliseconds when well). */
  requestMs: 1_500,
  attempts: 3,
  /** Lambda timeouts; API Gateway ends any integration at 29 s (504). */
  functionSeconds: 10,
  webFunctionSeconds: 15,
  authorizerSeconds: 10,
  gatewayMs: 29_000,
  /** What a 503 asks the client to wait before retrying. */
  retryAfterSeconds: 1,
} as const;

const MAX_BACK_OFF_MS = 3_000;
export const SDK_CALL_BUDGET_MS =
  TIMEOUTS.attempts * (TIMEOUTS.connectMs + TIMEOUTS.requestMs) + MAX_BACK_OFF_MS;

/**
 * Each team's quotas unless the deployment (`QUOTAS`, cdk.json's `quotas`) or the admin CLI sets others:
 * sized so that a whole list stays well within Lambda's 6 MB response.
 */
export const QUOTA_DEFAULTS = {
  brands: 500,
  contact_fields: 5000,
  sites: 100,
  pages: 10000,
  webhook_endpoints: 20,
  /**
   * Upload URLs `POST /files` issues, and the bytes they may write together (each URL counts its declared
   * `size` when it is issued; the library has no delete, so these bound what a team's library can hold).
   */
  uploads: 10_000,
  upload_bytes: 5 * 1024 * 1024 * 1024,
  /**
   * Idempotency-Key records a team may write in one UTC day (a keyed create's first answer; records live 24
   * hours, so a team holds at most twice this many): the deployment's, the same for every team, not in
   * GET /limits. Over it, a keyed create is a 429 with Retry-After until the next UTC day; without a key
   * it is not counted.
   */
  idempotency_records_per_day: 20_000,
};

/**
 * What one team's webhooks may take of the shared deliverer (docs/tenant-isolation.md): tries in flight
 * to one endpoint, endpoints sent to at once (so a team has at most their product in flight), and the
 * attempts kept per endpoint for its attempts list.
 */
export const WEBHOOK_LIMITS = {
  /** Tries one endpoint's deliverer has in flight at once; one deliverer per endpoint sends at a time. */
  triesInFlightPerEndpoint: 10,
  /**
   * A team's share of the deliverer: its runs that can be slow, at once. Every run that may
   * wait on a receiver longer than slowTryMs takes the endpoint's sender lease first, and a team has at
   * most this many live leases, so at most this many of its runs (one endpoint each, 10 tries in flight:
   * 50 requests) hold the deliverer for up to its 120 s. 5 is a tenth of the deliverer's default share
   * (cdk.json `concurrency.webhookDeliverer`, 50): ten teams at their share fill it, and three teams with
   * slow receivers hold 15 of 50 where they held all of it (3 × 20 endpoints). A run past the share leaves
   * its deliveries due, for the sweep (late, never lost). A stack that raises webhookDeliverer for issue
   * 37's scale raises this with it (a team with 20 endpoints each sending bursts needs 20).
   */
  delivererRunsPerTeam: 5,
  /**
   * The newest attempts kept per endpoint: older ones are deleted after each leased run of its deliverer,
   * and by about one in attemptsPrunedEvery of a healthy endpoint's lease-free attempts' runs.
   */
  attemptsKeptPerEndpoint: 1000,
  /**
   * How often a lease-free run prunes (a chance of its tries in this many): finding the newest 1,000 reads
   * about 125 read units, so about 1.25 a delivery; each attempt past them is one delete when it goes.
   */
  attemptsPrunedEvery: 100,
  /**
   * A try this slow marks its endpoint slow (until a run's tries are all quicker): a slow endpoint's first
   * tries take its sender lease, so it has at most triesInFlightPerEndpoint requests open however many
   * batches come in while it answers, and its runs count in its team's delivererRunsPerTeam. It is also
   * the timeout of a try without a lease (a healthy endpoint's first tries): a receiver that turns slow
   * holds such a run for this long at most, and its cut try (a failed try, retried by the schedule) marks
   * the endpoint, whose next runs take the lease.
   */
  slowTryMs: 5000,
  /** Deliveries handed to an endpoint's running deliverer while it holds the endpoint (the rest: the sweep). */
  handedOffPerEndpoint: 100,
} as const;

/**
 * Webhook signing secrets are sealed under data keys from KMS (shared/data/secret-envelope.ts). Each
 * bound is what one warm function keeps in memory; none is a caller's limit.
 */
export const SIGNING_SECRET_KEYS = {
  /**
   * A creating function (create, rotate) seals secrets under one data key for at most this long and this
   * many secrets, as the AWS Encryption SDK's caching materials manager bounds reuse: one GenerateDataKey
   * per warm function per 5 minutes at most, however many endpoints are made.
   */
  sealWithOneKeyMs: 5 * 60 * 1000,
  sealWithOneKeyCount: 1000,
  /**
   * Data keys a deliverer keeps decrypted (least recently used goes first) and for how long: a warm
   * deliverer makes one Decrypt per data key per 15 minutes, not one per delivery.
   */
  openKeysKept: 1000,
  openKeyAgeMs: 15 * 60 * 1000,
} as const;
