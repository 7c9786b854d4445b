/**
 * The port for stored companies.
 */
import { Context, type Effect, type Option } from "effect"
import type { CompanyId } from "../Ids.ts"
import type { Company } from "./Company.ts"

/** Companies by id. Ids are unique: inserting one twice is a defect. Storage failures are defects. */
export class CompanyRepository extends Context.Service<
  CompanyRepository,
  {
    readonly insert: (company: Company) => Effect.Effect<void>
    readonly findById: (id: CompanyId) => Effect.Effect<Option.Option<Company>>
  }
>()("@svc/domain/company/CompanyRepository") {}
