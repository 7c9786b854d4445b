/**
 * Companies: the schema and the repository port.
 */
export { Company, newCompany } from "./Company.ts"
export { CompanyNotFound } from "./CompanyNotFound.ts"
export { CompanyRepository } from "./CompanyRepository.ts"
