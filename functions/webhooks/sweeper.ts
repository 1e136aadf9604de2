// Placeholder so that the CDK app bundles (the lead's handler replaces it at merge).
export const handler = async () => {};
