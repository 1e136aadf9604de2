// Imported `with { type: 'text' }`: the file's text (esbuild in the bundles; locally lib/local/text-imports.ts
// under npm start and the plugin in vitest.config.ts).
declare module 'redoc/bundles/redoc.standalone.js' {
  const text: string;
  export default text;
}
