/** Migration from v1: the map between v1 ids and v2 nanoids. */
export {
  type NumberedV1IdKind,
  normalizeV1Id,
  V1IdConflict,
  V1IdKind,
  V1IdMap,
  V1IdMapping,
  type V1IdPage,
  v1IdMappingIssue
} from "./V1IdMap.ts"
