/**
 * The Admin GraphQL operations the services send, keyed by their text. `npm run graphql:codegen` fills
 * these interfaces (declaration merging, app/types/admin.generated.d.ts) from every `#graphql` string in
 * app/, each with its variables and its answer typed from the platform's schema
 * (docs/decisions/040-generated-contract-types.md). A query that was never generated, or whose text
 * changed since, is no key of them: the Admin API client refuses it when the types are checked.
 */
/* eslint-disable @typescript-eslint/no-empty-object-type -- filled by the generated declarations */
export interface AdminQueries {}
export interface AdminMutations {}
/* eslint-enable @typescript-eslint/no-empty-object-type */

type AdminOperations = AdminQueries & AdminMutations;

/** The text of an operation the codegen typed. */
export type AdminOperation = keyof AdminOperations & string;

/** The `data` the platform answers the operation with. */
export type AdminData<Operation extends AdminOperation> = AdminOperations[Operation] extends { return: infer Data }
  ? Data
  : never;

/** The operation's variables. */
export type AdminVariables<Operation extends AdminOperation> = AdminOperations[Operation] extends {
  variables: infer Variables extends Record<string, unknown>;
}
  ? Variables
  : never;
