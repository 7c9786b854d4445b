/** The error catalog shared by every API error body. */
export * from "./ErrorCatalog.ts"
