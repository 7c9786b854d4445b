/**
 * Companies: the legal entity that owns teams (SPEC §2.4 `company`).
 */
import { Schema } from "effect"
import { CompanyId } from "../Ids.ts"
import { PostalAddressWithTimezone } from "../PostalAddress.ts"
import { emptyPostalAddress } from "../user/User.ts"

/** A stored company, in the shape the member summary shows it. */
export const Company = Schema.Struct({
  nanoid: CompanyId,
  avatar: Schema.String,
  name: Schema.String,
  website: Schema.String,
  blockchain_address: Schema.String,
  incorporation_country: Schema.String,
  incorporation_type: Schema.String,
  address: PostalAddressWithTimezone,
  admin_contact: Schema.Struct({ fullname: Schema.String, phone: Schema.String, email: Schema.String }),
  private_data: Schema.Struct({ tax_id: Schema.String }),
  created_at: Schema.String
})
export type Company = typeof Company.Type

/** A new company with `name`, incorporated in the US as a sole proprietorship unless told, every other field empty. */
export const newCompany = (input: {
  readonly nanoid: CompanyId
  readonly name: string
  readonly created_at: string
  readonly website?: string | undefined
  readonly incorporation_country?: string | undefined
  readonly address?: Company["address"] | undefined
  readonly admin_contact?: Company["admin_contact"] | undefined
}): Company => ({
  nanoid: input.nanoid,
  avatar: "",
  name: input.name,
  website: input.website ?? "",
  blockchain_address: "",
  incorporation_country: input.incorporation_country ?? "US",
  incorporation_type: "sole_proprietorship",
  address: input.address ?? emptyPostalAddress,
  admin_contact: input.admin_contact ?? { fullname: "", phone: "", email: "" },
  private_data: { tax_id: "" },
  created_at: input.created_at
})
