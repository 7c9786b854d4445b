/**
 * Companies: the legal entity that owns teams (SPEC §2.4 `company`).
 */
import { Schema } from "effect"
import { CompanyId } from "../Ids.ts"
import { Address } from "../user/User.ts"

/** A stored company, in the shape the member summary shows it. */
export const Company = Schema.Struct({
  nanoid: CompanyId,
  avatar: Schema.String,
  name: Schema.String,
  website: Schema.String,
  blockchain_address: Schema.String,
  incorporation_country: Schema.String,
  incorporation_type: Schema.String,
  address: Address,
  admin_contact: Schema.Struct({ fullname: Schema.String, phone: Schema.String, email: Schema.String }),
  private_data: Schema.Struct({ tax_id: Schema.String }),
  created_at: Schema.String
})
export type Company = typeof Company.Type
