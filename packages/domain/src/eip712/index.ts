export * from "./Types.ts"
