/**
 * Imported first by the entry points a person runs (npm start, the admin CLI). The AWS SDK prints a
 * nine-line notice on Node 20 that its releases after January 2027 need Node 22. Lambda runs Node 22 and
 * local Node 20 is supported on purpose (README, Quick start): nothing a user of this project must act on.
 * An explicit setting of the variable is kept.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
